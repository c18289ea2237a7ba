@testable import Ingest
import SeededRandom
import StrapLab
import Testing

/// Straps that notify only when a beat ends (`StrapSender`): their arrivals are beats, 1–2 s apart at slow
/// rates, never without RR. In the first seconds after a connect and after a reconnect the 1-s prior must not
/// take their spacing for lost notifications (docs/INGEST.md, "Per-beat senders"); and a gap, false or not,
/// never stores a beat twice.
@Suite struct PerBeatSenderTests {
    static let senders: [StrapSender] = [.everyBeat, .firstBeatEachPeriod]
    static let seeds: Range<UInt64> = 0..<4

    func expectOnlyTheConnections(_ tally: TimelineTally, _ label: String) {
        #expect(tally.gapsByRule == ["connection": 2 * tally.runs], "\(label): \(tally.gapsByRule)")
        #expect(tally.falsePositives == 0 && tally.missed == 0, "\(label): \(tally.falsePositives) false gaps")
        #expect(tally.invented == 0, "\(label): \(tally.invented) beats stored twice or invented")
        #expect(tally.inexact == 0, "\(label): every beat at its true time")
        #expect(tally.storedRR == tally.deliveredRR && tally.unsaved == 0, "\(label)")
    }

    /// Slow (40–60 bpm) and fast (120 bpm) hearts, arrival jitter 20 and 60 ms: no gap but the two connections.
    @Test(arguments: senders, [40.0, 50, 60, 120])
    func aPerBeatSenderGetsNoGapButItsConnections(sender: StrapSender, bpm: Double) async {
        for jitter in [0.02, 0.06] {
            let tally = await FirstSecondsMatrix.perBeat(sender, bpm: bpm, jitter: jitter, seeds: Self.seeds)
            expectOnlyTheConnections(tally, "\(sender.rawValue) \(Int(bpm)) bpm \(Int(jitter * 1000)) ms")
        }
    }

    /// `ReplayStoreRoundTripTests`' stream: RR uniform in 400–1500 ms, a notification at the first beat after
    /// each second with up to 30 ms of jitter (seed 1 there got a false gap and a duplicated beat).
    @Test func randomRRSentAtTheFirstBeatOfEachSecondGetsNoGap() async {
        var rng = SplitMix64(seed: 1)
        let recording = (0..<600).map { _ in Int.random(in: 400...1500, using: &rng) }
        let tally = await FirstSecondsMatrix.perBeat(.firstBeatEachPeriod, bpm: 60_000 / 950, jitter: 0.03,
                                                     seeds: 0..<8, recording: recording)
        expectOnlyTheConnections(tally, "random RR")
    }

    /// A chain broken where nothing was missing, re-anchored at an arrival a few milliseconds off its last beat
    /// (closer than `rrMinMs`): the implied predecessor is that beat, so it is not stored again and the chain
    /// continues from it.
    @Test(arguments: [-0.0195, 0, 0.0195, 0.2])
    func aGapNeverStoresTheLastBeatTwice(offBy: Double) throws {
        let settings = IngestSettings()
        var timeline = BeatTimeline()
        let first = timeline.ingest([818, 1450], arrival: 10, settings: settings)
        #expect(first.beats.count == 3)
        let last = try #require(first.beats.last).ticks
        timeline.breakChain(.lostNotification)
        let next = timeline.ingest([785, 1295], arrival: 10 + Double(785 + 1295) / 1024 + offBy, settings: settings)
        #expect(next.beats.map(\.ticks) == [last + 785, last + 785 + 1295])
        #expect(next.beats.first?.gap == .lostNotification)
        #expect(next.overlapping == 1, "the implied predecessor is the stored beat: dropped")
    }

    /// A beat really missing before the anchor (at least `rrMinMs` after the last one) is still stored.
    @Test func aRealImpliedPredecessorIsStored() throws {
        let settings = IngestSettings()
        var timeline = BeatTimeline()
        let last = try #require(timeline.ingest([818, 1450], arrival: 10, settings: settings).beats.last).ticks
        timeline.breakChain(.lostNotification)
        let next = timeline.ingest([785], arrival: 10 + 0.8 + 785.0 / 1024, settings: settings)
        #expect(next.beats.count == 2)
        #expect(next.beats.first.map { $0.ticks - last } == 819)
        #expect(next.beats.first?.gap == .lostNotification)
    }
}
