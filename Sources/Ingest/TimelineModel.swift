/// Where one notification's RR values must lie, on the beat chain's scale (monotonic seconds).
struct SendBounds: Sendable, Equatable {
    /// The previous slot's send time: the notification's first beat must come after it, or it would have been
    /// sent then — unless beats are missing in between.
    var previousSend: Double
    /// What could have lost beats since the previous notification with RR; nil: nothing seen.
    var suspect: GapReason?
    /// A notification without RR at a heart rate too low to say a beat fell inside it came since: it may have
    /// held one, so a first beat that passes is held back until the next notification decides.
    var mayHaveLost = false

    /// Whether a notification that passes must wait for the next one (docs/INGEST.md, "Holding back").
    var holdsBack: Bool { suspect != nil || mayHaveLost }
}

/// The per-session model behind quiet-loss detection (pure; no I/O): the sensor's notification grid
/// (`NotificationCadence`) and the offset K between that grid and the beat chain.
///
/// A notification carries the beats completed since the previous one, so its last beat is at most its send
/// time and the next beat comes after it: on the chain's scale, `sendTime(slot) − chainEnd − K ∈ [0, nextRR)`,
/// where K is the constant part (link latency, the sensor's detection delay, where the chain was anchored).
/// K is the lowest `sendTime − chainEnd` of recent notifications since the chain was last anchored (the one
/// whose beat fell just before it was sent), a sliding minimum so it follows clock drift. Every sample is an
/// upper bound of K, so one suffices: learnt from above, K errs only on the side that hides a loss (the
/// boundary comes early), never on the side that invents one; each further notification tightens it.
struct TimelineModel: Sendable {
    /// Only samples this many slots back or fewer count: the error of the fitted period grows with the distance.
    static let sampleSpan = 16
    /// The span on the prior period right after a suspect slot (a skipped slot, a notification without RR at a
    /// heart rate that says a beat fell inside it): a strap's clock errs at most ±100 ppm from the prior, 0.1 ms a
    /// slot, so 64 slots (the prior's whole life, `NotificationCadence.matureAfter`) err 6.4 ms at most, within
    /// `sendTimeTolerance`. A slow heart
    /// (RR near the period) moves its beats against the sends slowly: the notification whose beat fell just before
    /// its send (the one that tells K) may be 20–40 slots back. Only there: elsewhere (after a notification without
    /// RR at a slow heart too) the wider span finds earlier losses, but 10–25 notifications late, as a
    /// `chainBehind` on a later beat (docs/INGEST.md, "From the first notification").
    static let priorSampleSpan = 64

    /// Slack (seconds) of the RR-span rule (`lossIsCertain`): the RR quantum twice and the sensor clock's drift.
    static let spanTolerance = 0.005
    /// How far a notification's arrival spacing may differ from its RR sum for a per-beat sender (seconds): twice
    /// the arrival jitter such a sender is recognised at (docs/INGEST.md, "Per-beat senders").
    static let perBeatTolerance = 0.08

    private(set) var cadence = NotificationCadence()
    /// (slot, chain end) of recent notifications with RR.
    private var samples: [(slot: Int, chainEnd: Double)] = []
    /// The current notification's slot on the grid; nil while unlocked.
    private(set) var slot: Int?
    /// The slot of the last notification whose RR values ended the chain.
    private var lastRRSlot: Int?
    private(set) var suspect: GapReason?
    private var mayHaveLost = false
    /// The current notification's arrival, and that of the last notification whose RR values ended the chain.
    private var arrivalTime: Double?
    private var lastRRArrival: Double?
    /// What the stream has shown about its sender since the connection (see `mayDecide`).
    private(set) var sender = SenderEvidence.none
    /// The current notification's arrival spacing differs from its RR sum: it is no per-beat sender's, lossless.
    private var spacingMismatch = false

    mutating func reset() { self = TimelineModel() }

    /// A new connection of the same device: everything starts afresh (the grid, K, the suspects) but what the
    /// stream showed about its sender. A strap that notified at a cadence before the link dropped still does:
    /// its firmware did not change, so the grid may decide from the reconnection's first notifications instead of
    /// waiting for the stream to show its cadence again (docs/INGEST.md, "After a reconnect").
    mutating func reconnect() {
        let known = sender
        self = TimelineModel()
        sender = known
    }

    /// Every notification's arrival (effective monotonic seconds), decodable or not.
    mutating func arrival(_ time: Double) {
        arrivalTime = time
        spacingMismatch = false
        guard let seen = cadence.observe(time) else {
            // Unlocked: slot numbers start over when it locks again, so the samples mean nothing any more.
            slot = nil
            lastRRSlot = nil
            lastRRArrival = nil
            samples.removeAll()
            suspect = nil
            mayHaveLost = false
            return
        }
        slot = seen.slot
        if seen.missed > 0 { suspect = .lostNotification }
    }

    /// A notification without RR values while the chain runs (the sensor has been sending RR, contact is fine).
    /// It is suspect when its heart rate says a beat fell inside it: an interval of `60/bpm` at most 90 % of
    /// the period (the margin covers a heart rate averaged over several beats). Otherwise it may well be
    /// legitimate (heart rate below ~66 at 1 Hz); if the chain later shows beats missing there anyway, the
    /// flag still lands on the next beat, but no implied predecessor is emitted (it may be a beat already stored).
    mutating func arrivedWithoutRR(bpm: Int, contact: Bool) {
        // A sender that notifies only when a beat ends never sends a notification without RR.
        if contact { sender = .cadence }
        guard slot != nil, suspect == nil, bpm > 0, let period = cadence.period else { return }
        if 60 / Double(bpm) <= 0.9 * period { suspect = .missingRR } else { mayHaveLost = true }
    }

    /// The grid-to-chain offset K, once enough notifications told it.
    var offset: Double? { offset(wide: false) }

    /// K from the samples within `sampleSpan`, or (`wide`, on the prior only) within `priorSampleSpan`.
    func offset(wide: Bool) -> Double? {
        // The lowest sendTime(slot) − chainEnd, without building an array (this runs for every notification).
        var lowest: Double?
        let span = wide && cadence.onPrior ? Self.priorSampleSpan : Self.sampleSpan, newest = samples.last?.slot ?? 0
        for s in samples where s.slot >= newest - span {
            guard let send = cadence.sendTime(slot: s.slot) else { return nil }
            lowest = min(lowest ?? .infinity, send - s.chainEnd)
        }
        return lowest
    }

    /// Whether beats were certainly lost before the current notification, whose first plausible RR is `firstRR`
    /// seconds, on a chain that continued unbroken from the last notification with RR: true when the slots in
    /// between delivered no RR (lost, or without RR) and `firstRR` is shorter than they span. A notification
    /// carries the beats of its own window, so the last beat stored is at most the send time of its slot and this
    /// notification's first beat is after the previous slot's send time: with no beat in between, the RR joining
    /// them spans every slot between, `firstRR ≥ k·P`. Needs only the period (the prior from the first arrival),
    /// not the grid-to-chain offset K, so it decides from the first notifications of a connection.
    func lossIsCertain(firstRR: Double) -> Bool {
        guard let slot, let lastRRSlot, let period = cadence.period, mayDecide else { return false }
        let silent = slot - lastRRSlot - 1
        return silent >= 1 && firstRR < Double(silent) * period - Self.spanTolerance
    }

    /// Whether something since the last notification with RR may have lost beats (a skipped slot, a
    /// notification without RR), or the grid is unlocked and could not tell.
    var maySuspect: Bool { slot == nil || suspect != nil || mayHaveLost }

    /// The rule a certain loss is flagged with: a skipped slot, else a notification without RR.
    var certainLossReason: GapReason { suspect ?? .missingRR }

    /// The last notification with RR's slot and chain end, while the grid may decide (`PlaceContest`).
    var lastSample: PlaceContest.Sample? {
        guard mayDecide, let s = samples.last else { return nil }
        return PlaceContest.Sample(slot: s.slot, chainEnd: s.chainEnd)
    }

    /// The bounds of the current notification, if the grid is trusted and K known.
    var bounds: SendBounds? {
        guard mayDecide, let slot, let k = offset(wide: suspect != nil), let previous = cadence.sendTime(slot: slot - 1)
        else { return nil }
        return SendBounds(previousSend: previous - k, suspect: suspect, mayHaveLost: mayHaveLost)
    }

    /// The send time before `slot` on the chain's scale, as `bounds` gives it for the current slot: how a held
    /// notification is checked again with what the model knows now (nil while the grid may not decide); K over the
    /// wide span when the holding began at a suspect slot (`afterSuspect`), as `bounds` took it then.
    func previousSend(before slot: Int, afterSuspect: Bool) -> Double? {
        guard mayDecide, let k = offset(wide: afterSuspect), let previous = cadence.sendTime(slot: slot - 1)
        else { return nil }
        return previous - k
    }

    /// A notification with RR values whose plausible ones sum to `rrSum` seconds, before they join the chain:
    /// compares its arrival spacing from the last notification with RR with that sum (`mayDecide`).
    mutating func arrivedWithRR(rrSum: Double) {
        guard let slot, let lastRRSlot, let arrivalTime, let lastRRArrival else { return }
        guard abs(arrivalTime - lastRRArrival - rrSum) > Self.perBeatTolerance else { return }
        spacingMismatch = true
        // Between consecutive slots nothing was seen lost: the mismatch is the sender's cadence, not a loss.
        if slot == lastRRSlot + 1 { sender = .cadence }
    }

    /// Whether the grid may decide losses now: it is trusted (on the prior, or mature) and the stream has shown
    /// that it notifies at a cadence rather than when a beat ends. A per-beat sender's arrivals are its beats
    /// (spacing = the RR sum, up to jitter), 1–2 s apart at slow rates, so a 1-s grid would see skipped slots
    /// and beats "before the previous send" where nothing is missing. Shown by a notification without RR (a
    /// per-beat sender sends none), or by consecutive notifications whose spacing differs from the RR sum; the
    /// notification being decided may show it itself (for a per-beat sender that difference is a loss).
    var mayDecide: Bool {
        cadence.isTrusted && (sender == .cadence || spacingMismatch)
    }

    /// The current notification's RR values ended the chain at `chainEnd`.
    mutating func chainEnded(at chainEnd: Double) {
        suspect = nil
        mayHaveLost = false
        guard let slot else { return }
        lastRRSlot = slot
        lastRRArrival = arrivalTime
        samples.append((slot, chainEnd))
        samples.removeAll { $0.slot < slot - Self.priorSampleSpan }
    }

    /// The chain was (re-)anchored at an arrival: its offset to the grid is new, K must be learnt again.
    mutating func forgetOffset() {
        samples.removeAll()
    }
}

/// What a connection's stream has shown about how its sender notifies (`TimelineModel.mayDecide`).
enum SenderEvidence: Sendable, Equatable {
    /// Nothing yet: it may notify when a beat ends.
    case none
    /// It notifies at a cadence (a notification without RR, or spacing unlike its RR sum between consecutive slots).
    case cadence
}
