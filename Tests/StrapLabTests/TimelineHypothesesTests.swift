import StrapLab
import Testing

/// The verdicts `heartbench timeline --first-seconds --list-misses` argues cases with (docs/INGEST.md, "Every case,
/// listed and argued").
@Suite struct TimelineHypothesesTests {
    /// The six slow-heart losses that are decidable only 21–25 notifications after the fault and were never flagged
    /// (every jitter likewise): "nothing lost" stops fitting, with the check's 30 ms of slack, only at a
    /// notification that arrived without RR — H0 puts a beat in its empty window — and a loss at such a notification
    /// instead of at the fault fits every arrival of the run: two places or more, undecidable from the arrivals.
    @Test(arguments: [(false, 5, 32 as UInt64), (false, 10, 31), (true, 2, 15), (true, 2, 24), (true, 2, 41), (true, 5, 32)])
    func aLateSlowHeartDecisionHasASecondPlace(afterReconnect: Bool, offset: Int, seed: UInt64) throws {
        let scenario = StrapScenario.firstSeconds(.slowHeart, seed: seed, offset: offset, jitter: 0.06,
                                                  afterReconnect: afterReconnect)
        let recording = StrapGenerator.generate(scenario)
        let verdict = try #require(TimelineHypotheses.verdict(recording))
        let refuted = try #require(verdict.refutedWithSlackAt, "decidable with the slack")
        let fault = try #require(scenario.faultStarts?.first)
        #expect(refuted - fault >= 21, "late: \(refuted - fault) notifications after the fault")
        #expect(recording.sent[refuted].window.isEmpty, "refuted by a notification without RR")
        let places = TimelineHypotheses.places(recording)
        #expect(places.contains { $0.notification == refuted && $0.refutedAt == nil },
                "a loss at that notification fits every arrival: \(places)")
    }

    /// A place can be refuted: slow heart, a notification lost two slots after a reconnect (seed 27), flagged late at
    /// the notification after the RR-less one at 69 — which fits as the place of the loss at first, but no offset and
    /// lost RR fit it once notification 81 arrived: then only the fault's place fits (docs/INGEST.md, "Late decisions").
    @Test func aSecondPlaceIsRefutedWhenALaterArrivalContradictsIt() throws {
        let recording = StrapGenerator.generate(StrapScenario.firstSeconds(.slowHeart, seed: 27, offset: 2, jitter: 0.06,
                                                                           afterReconnect: true))
        let verdict = try #require(TimelineHypotheses.verdict(recording))
        #expect(verdict.refutedWithSlackAt == 69)
        let places = TimelineHypotheses.places(recording)
        #expect(places.map(\.notification) == [69] && places.first?.refutedAt == 81, "\(places)")
    }
}
