/// Reconstructs beat times from RR intervals (pure; no I/O, no dates).
///
/// Beats live on an integer tick grid (1/1024 s, the RR unit) counted from an origin on the monotonic clock,
/// so every beat offset inside a series is an exact multiple of 1/1024 s and consecutive beats differ by
/// exactly their RR value. A notification's last RR is taken to end at its arrival; when the chain is not
/// anchored, it is anchored at `arrival − sum(plausible RR of the rest of the notification)`, and that anchor
/// is itself a beat (the implied predecessor: the one the first RR starts from), flagged with the pending gap
/// reason. Anchoring at the arrival keeps each anchor's error independent of the last (an anchor at an
/// estimated send time would inherit the previous stretch's error, and the chain would walk away). With bounds,
/// a first beat at or before the previous send time means beats are missing just before it: the chain is
/// broken there (the bounds' suspect, or `chainBehind`) and re-anchored, so the flag lands on the beat after
/// the hole; beats already emitted are never moved.
struct BeatTimeline: Sendable {
    static let ticksPerSecond = 1024.0

    /// Monotonic seconds of tick 0; nil until the first anchor after `restart()`.
    private(set) var origin: Double?
    /// Ticks of the chain's last beat; nil = not anchored (the next plausible RR re-anchors to the clock).
    private(set) var position: Int?
    /// Ticks of the last emitted beat: later beats must come strictly after it.
    private(set) var lastEmitted: Int?
    /// The rule that will flag the next emitted beat.
    private(set) var pendingGap: GapReason? = .connection
    /// The notification after a suspect slot and those that followed it, held back until one decides (`ingest`).
    private var held: [HeldNotification] = []
    /// An RR value was dropped as implausible since the last emitted beat: the chain lost real time there.
    private var droppedSinceEmit = false
    /// Beats emitted undecided after a suspect slot, which a later check may still decide (`LateStretch`).
    private(set) var lateStretch: LateStretch?

    /// Notifications held back at most: the one after a suspect slot and the next two, so the fourth decides at
    /// the latest (docs/INGEST.md, "Holding back").
    static let maxHeld = 3

    var isHolding: Bool { !held.isEmpty }

    /// Whether the holding began at a suspect slot (not at a notification that only may have held a beat).
    var heldAfterSuspect: Bool { held.first?.suspect != nil }

    /// The grid slot of each notification held, oldest first, for `ingest`'s `heldPreviousSends`.
    var heldSlots: [Int?] { held.map(\.slot) }

    /// Breaks the chain: the next plausible RR re-anchors to the clock and its beat is flagged. The first
    /// reason given since the last emitted beat is kept.
    mutating func breakChain(_ reason: GapReason) {
        position = nil
        lateStretch = nil
        if pendingGap == nil { pendingGap = reason }
    }

    /// Something since the stretch may have lost beats too, or the series it is in finished: no late decision.
    mutating func closeLateStretch() { lateStretch = nil }

    /// Forgets the origin (nothing open refers to it any more); the pending gap reason stays.
    mutating func restart() {
        lateStretch = nil
        origin = nil
        position = nil
        lastEmitted = nil
    }

    /// Adds the beats of one notification's RR values (1/1024 s, oldest first) that arrived at `arrival`
    /// (monotonic seconds, never earlier than the previous arrival), checked against `bounds` when known. `slot`
    /// is its slot on the model's grid (nil while unlocked: nothing held can be decided any more); the
    /// notifications held are checked again against `heldPreviousSends` (each one's previous send time as the
    /// model knows it now, nil where it cannot tell yet).
    mutating func ingest(_ rr: [UInt16], arrival: Double, bounds: SendBounds? = nil, slot: Int? = nil,
                         heldPreviousSends: [Double?] = [], settings: IngestSettings) -> TimelineResult {
        var result = TimelineResult()
        result.beats.reserveCapacity(rr.count + 1)  // an implied predecessor and the RR values' beats
        if var stretch = lateStretch {
            stretch.notifications += 1
            lateStretch = stretch.notifications > LateStretch.span ? nil : stretch
        }
        let plausible = rr.map { Self.isPlausible($0, settings: settings) }
        var remaining = zip(rr, plausible).reduce(0) { $0 + ($1.1 ? Int($1.0) : 0) }
        guard remaining > 0 else {
            result.beats = releaseHeld()
            result.implausible = plausible.filter { !$0 }.count
            if result.implausible > 0 {
                droppedSinceEmit = true
                breakChain(.implausibleRR)
            }
            return result
        }
        var decided = false, keepsHolding = false
        if !held.isEmpty {
            // The notifications after a suspect slot waited for this one: a first beat too early here, or in one of
            // them against what the model knows now, means the beats were missing before the first one held (the
            // chain is behind since), so it is re-anchored there. Undecided, this one joins them (up to `maxHeld`)
            // unless something new may have lost beats since; also while the model cannot decide for a moment (no
            // bounds: the stream has not shown its cadence again) but its grid still holds.
            if bounds.map({ firstBeatIsEarly(rr, plausible: plausible, bounds: $0, settings: settings) }) == true
                || heldFirstBeatIsEarly(heldPreviousSends, settings: settings) {
                decided = true
                reanchorHeld(settings: settings, into: &result)
            } else if slot != nil, bounds?.holdsBack != true, held.count < Self.maxHeld {
                keepsHolding = true
            } else {
                decided = true
                // A full hold that passed: a later check may still decide it (`LateStretch`).
                let full = held.count >= Self.maxHeld && slot != nil && bounds?.holdsBack != true
                if full, let first = held.first, let beat = held.lazy.flatMap(\.beats).first {
                    lateStretch = LateStretch(firstTicks: beat.ticks, reason: first.suspect ?? .chainBehind)
                }
                result.beats = releaseHeld()
            }
        }
        let before = (position: position, lastEmitted: lastEmitted, beats: result.beats.count)
        // The first beat must come after the previous send time, or beats are missing before it.
        if !decided, let bounds, firstBeatIsEarly(rr, plausible: plausible, bounds: bounds, settings: settings) {
            decided = true
            if let suspect = bounds.suspect {
                breakChain(suspect)
            } else if let stretch = lateStretch, !bounds.mayHaveLost, let position, let now = ticks(at: arrival),
                      now - remaining > position {
                // Behind since the stretch's suspect slot: the stored stretch moves, this notification follows it.
                result.correction = LateCorrection(firstTicks: stretch.firstTicks, shift: now - remaining - position,
                                                   reason: stretch.reason)
                self.position = now - remaining
                lastEmitted = lastEmitted.map { $0 + now - remaining - position }
                lateStretch = nil
                result.anchored = true
            } else {
                // Nothing since the previous notification could have lost a beat, so the beat before this one is
                // the last one emitted, placed too early by a loss that went unseen: move the chain, flag the
                // next beat, and emit no implied predecessor (it would be that beat again).
                let unmoved = position
                breakChain(.chainBehind)
                anchor(at: arrival, remaining: remaining, emitImplied: false, settings: settings, into: &result)
                if let unmoved, let position { result.behindJump = position - unmoved }
            }
        }
        // The chain says the last beat is at position + remaining; the clock says about `arrival`.
        if let position, let expected = ticks(at: arrival),
           Double(abs(position + remaining - expected)) > settings.clockTolerance * Self.ticksPerSecond {
            breakChain(.clockDrift)
        }
        for (value, ok) in zip(rr, plausible) {
            guard ok else {
                result.implausible += 1
                droppedSinceEmit = true
                breakChain(.implausibleRR)
                continue
            }
            if position == nil { anchor(at: arrival, remaining: remaining, settings: settings, into: &result) }
            let next = (position ?? 0) + Int(value)
            position = next
            remaining -= Int(value)
            emit(next, into: &result)
        }
        if keepsHolding {
            // Re-anchored (the clock disagreed) or an RR dropped: the chain broke here, so the held beats go first.
            if result.anchored || result.implausible > 0 {
                result.beats = releaseHeld() + result.beats
            } else if let position = before.position {
                held.append(HeldNotification(position: position, lastEmitted: before.lastEmitted, rr: rr, arrival: arrival,
                                             total: rr.reduce(0) { $0 + Int($1) }, suspect: nil, slot: slot,
                                             beats: result.beats))
                result.beats = []
            }
        } else if !decided, let bounds, bounds.holdsBack, let position = before.position, !result.anchored,
                  result.implausible == 0, before.beats == 0 {
            // A suspect slot before a first beat that passed: undecidable here, so a later notification decides.
            held = [HeldNotification(position: position, lastEmitted: before.lastEmitted, rr: rr, arrival: arrival,
                                     total: rr.reduce(0) { $0 + Int($1) }, suspect: bounds.suspect, slot: slot,
                                     beats: result.beats)]
            result.beats = []
        }
        return result
    }

    /// The held notifications' beats, as they are (the chain continues through them): something came between
    /// that cannot decide, or the series finishes.
    mutating func releaseHeld() -> [TimelineBeat] {
        defer { held.removeAll() }
        return held.count == 1 ? held[0].beats : held.flatMap(\.beats)
    }

    /// Beats were missing before the first notification held: the chain is re-anchored at its arrival (its
    /// implied predecessor flagged, when a suspect slot came before it) and every held notification's beats
    /// follow from there by their RR.
    private mutating func reanchorHeld(settings: IngestSettings, into result: inout TimelineResult) {
        let all = held
        held.removeAll()
        guard let first = all.first else { return }
        (position, lastEmitted) = (first.position, first.lastEmitted)
        breakChain(first.suspect ?? .chainBehind)
        anchor(at: first.arrival, remaining: first.total, emitImplied: first.suspect != nil, settings: settings,
               into: &result)
        if first.suspect == nil, let position { result.behindJump = position - first.position }
        for notification in all {
            for value in notification.rr {
                position = (position ?? 0) + Int(value)
                emit(position ?? 0, into: &result)
            }
        }
    }

    /// Whether a held notification's first beat falls at or before its previous send time as known now.
    private func heldFirstBeatIsEarly(_ previousSends: [Double?], settings: IngestSettings) -> Bool {
        for (notification, send) in zip(held, previousSends) {
            guard let send, let first = notification.rr.first,
                  let seconds = seconds(ofTicks: notification.position + Int(first)) else { continue }
            if seconds <= send - settings.sendTimeTolerance { return true }
        }
        return false
    }

    /// Whether a notification's first plausible beat falls at or before the previous send time.
    private func firstBeatIsEarly(_ rr: [UInt16], plausible: [Bool], bounds: SendBounds, settings: IngestSettings) -> Bool {
        guard let position, let first = zip(rr, plausible).first(where: { $0.1 })?.0,
              let firstSeconds = seconds(ofTicks: position + Int(first)) else { return false }
        return firstSeconds <= bounds.previousSend - settings.sendTimeTolerance
    }

    /// Anchors the chain so that `remaining` ticks of RR end at `time`, and emits the implied predecessor there
    /// (`emitImplied`), unless it is the last beat emitted: with no RR dropped since that beat, two beats closer
    /// than `rrMinMs` are one beat placed twice (the arrival the anchor comes from carries jitter; the chain's
    /// own beat does not), so the chain continues from that beat (the implied one counts as overlapping) and no
    /// beat is stored twice, whatever rule broke the chain. After an implausible RR the anchor keeps the clock's
    /// word: the dropped value took real time.
    private mutating func anchor(at time: Double, remaining: Int, emitImplied: Bool = true, settings: IngestSettings,
                                 into result: inout TimelineResult) {
        if origin == nil {
            origin = time - Double(remaining) / Self.ticksPerSecond
            position = 0
        } else {
            position = (ticks(at: time) ?? 0) - remaining
        }
        lateStretch = nil
        result.anchored = true
        guard emitImplied else { return }
        let minimum = Int((settings.rrMinMs * Self.ticksPerSecond / 1000).rounded(.up))
        if !droppedSinceEmit, let lastEmitted, let placed = position, abs(placed - lastEmitted) < minimum {
            position = lastEmitted
            result.overlapping += 1
            return
        }
        emit(position ?? 0, into: &result)
    }

    private mutating func emit(_ ticks: Int, into result: inout TimelineResult) {
        if let lastEmitted, ticks <= lastEmitted {
            result.overlapping += 1
            return
        }
        result.beats.append(TimelineBeat(ticks: ticks, gap: pendingGap))
        pendingGap = nil
        droppedSinceEmit = false
        lastEmitted = ticks
    }
}
