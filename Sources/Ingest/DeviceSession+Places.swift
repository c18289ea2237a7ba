/// A late stretch closed by a notification without RR at a slow heart rate, decided when a later arrival refutes
/// every place but the fault's (`PlaceContest`; docs/INGEST.md, "Late decisions").
extension DeviceSession {
    /// Before a notification with RR joins the chain: a notification without RR since the last one with RR, at a
    /// heart rate that does not say a beat fell in it, is another place while a late stretch (or its contest) is
    /// open; after the re-anchor it is no place of the loss behind it (a beat lost there too would only put the
    /// later beats early, which refutes nothing), so the contest goes on. Anything else that may have lost beats
    /// closes the contest.
    mutating func notePlace() {
        guard model.maySuspect else { return }
        if contest?.jump != nil, model.slot != nil, model.suspect == nil { return }
        guard model.slot != nil, model.suspect == nil, let before = model.lastSample,
              let stretch = contest?.stretch ?? timeline.lateStretch else {
            contest = nil
            return
        }
        var next = contest ?? PlaceContest(stretch: stretch)
        contest = next.add(before: before) ? next : nil
    }

    /// After a notification with RR was stored: the `rr-chain-behind` re-anchor starts the count, every later
    /// notification's sample may refute the places; once all are refuted the stored stretch moves to the fault's
    /// place and the re-anchored notification's first beat is stored unflagged. Any other anchor closes it.
    mutating func contestPlaces(_ result: TimelineResult) {
        guard var next = contest else { return }
        if let jump = result.behindJump, let first = result.beats.first(where: { $0.gap == .chainBehind }) {
            guard next.reanchored(jump: jump, firstBeat: first.ticks) else { return contest = nil }
        } else if result.anchored || result.correction != nil || result.implausible > 0 {
            return contest = nil
        }
        guard let sample = model.lastSample, next.observe(sample) else { return contest = nil }
        contest = next
        let cadence = model.cadence
        guard let (correction, until) = next.correction(tolerance: settings.sendTimeTolerance,
                                                        sendTime: { cadence.sendTime(slot: $0) }) else { return }
        contest = nil
        guard series.correctBeats(fromTicks: correction.firstTicks, shift: correction.shift, untilTicks: until)
        else { return }
        // The counters count the stored flags (as for a late decision): the re-anchor's flag is gone from the store.
        let behind = counters.gapsByRule[GapReason.chainBehind.rawValue] ?? 0
        counters.gapsByRule[GapReason.chainBehind.rawValue] = behind > 1 ? behind - 1 : nil
        counters.gapsByRule[correction.reason.rawValue, default: 0] += 1
        needsCheckpoint = true
        logger.debug("place of a late loss decided; stored beats corrected", metadata: ["shift": "\(correction.shift)"])
    }
}
