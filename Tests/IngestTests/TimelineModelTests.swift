import Foundation
@testable import Ingest
import SeededRandom
import SourceEvents
import StrapLab
import Testing

/// The cadence grid and the chain-vs-send-time rules on hand-made streams.
@Suite struct TimelineModelTests {
    /// Arrivals at `1 + slot·period + lateness`, the lateness cycling through `late`.
    func arrivals(slots: [Int], period: Double = 1, late: [Double] = [0, 0.4, 0.1, 0.3, 0.2]) -> [Double] {
        slots.enumerated().map { i, slot in 1 + Double(slot) * period + late[i % late.count] }
    }

    @Test func locksOnASteadyStreamDespite400msJitterAndCountsSkippedSlots() throws {
        var cadence = NotificationCadence()
        var seen: [NotificationCadence.Observation?] = []
        for t in arrivals(slots: Array(0..<70) + [71] + Array(72..<80) + [83, 84]) { seen.append(cadence.observe(t)) }
        #expect(seen.allSatisfy { $0 != nil }, "locked on the 1 s prior from the first arrival")
        #expect(cadence.isMature)
        #expect(abs(try #require(cadence.period) - 1) < 0.01)
        #expect(seen.compactMap { $0?.missed }.filter { $0 > 0 } == [1, 3])
    }

    @Test func aStrapAtAnotherCadenceRefutesThePriorAndIsLearnt() throws {
        var cadence = NotificationCadence()
        var seen: [NotificationCadence.Observation?] = []
        for t in arrivals(slots: Array(0..<80), period: 0.5, late: [0, 0.1, 0.05, 0.15]) { seen.append(cadence.observe(t)) }
        #expect(cadence.priorRefuted)
        #expect(!cadence.onPrior && cadence.isMature)
        #expect(abs(try #require(cadence.period) - 0.5) < 0.01)
        #expect(seen.suffix(60).allSatisfy { $0?.missed == 0 }, "no skipped slot once learnt")
    }

    @Test func thePriorIsTrustedFromTheFirstArrivalAndHandsOverToTheFitAt64() throws {
        var cadence = NotificationCadence()
        _ = cadence.observe(1)
        #expect(cadence.isTrusted && cadence.onPrior && cadence.period == 1)
        for t in arrivals(slots: Array(1..<70), period: 1.0001).dropFirst() { _ = cadence.observe(t) }
        #expect(cadence.isMature && !cadence.onPrior)
        #expect(abs(try #require(cadence.period) - 1.0001) < 0.005)
    }

    @Test func neverLocksOnIrregularArrivals() {
        var cadence = NotificationCadence()
        var t = 0.0
        var rng = SplitMix64(seed: 7)
        for i in 0..<100 {
            t += i % 3 == 0 ? 0.01 : Double.random(in: 0.3...1.2, using: &rng)
            _ = cadence.observe(t)
        }
        #expect(!cadence.isLocked)
    }

    @Test func anArrivalLaterThanTheBoundUnlocks() {
        var cadence = NotificationCadence()
        for t in arrivals(slots: Array(0..<20), late: [0, 0.1]) { _ = cadence.observe(t) }
        #expect(cadence.isLocked)
        #expect(cadence.observe(1 + 20 + 0.7) == nil, "0.7 s late: the slot is ambiguous")
        #expect(!cadence.isLocked)
    }

    /// One notification a second, each with the RR of the beats in its window, beats every 0.8 s from `phase`;
    /// notification `lost` is dropped, `rrLess` arrives without RR.
    func strap(seconds: Int, lost: Set<Int> = [], rrLess: Set<Int> = [], rr: UInt16 = 820) -> [SourceEvent] {
        var events: [SourceEvent] = [connected(0)]
        var beat = 0.1
        for j in 1...seconds {
            var values: [UInt16] = []
            while beat + Double(rr) / 1024 <= Double(j) {
                beat += Double(rr) / 1024
                values.append(rr)
            }
            if lost.contains(j) { continue }
            let bpm = UInt16((60 * 1024 / Double(rr)).rounded())
            events.append(notification(Double(j) + 0.02 + Double(j % 5) * 0.07, hrm(bpm, rr: rrLess.contains(j) ? [] : values)))
        }
        return events
    }

    @Test func aLostNotificationIsFlaggedAtTheBeatAfterTheHole() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, strap(seconds: 100, lost: [85]))
        await pipeline.finishAll(reason: .shutdown)
        let beats = sink.contents.absoluteBeats
        let flagged = beats.enumerated().filter(\.element.gap).map(\.offset)
        #expect(flagged.count == 2)
        let hole = try #require(flagged.last)
        // The implied predecessor sits after the hole (notification 84's last beat ends before 84 s)...
        #expect(beats[hole - 1].time < 84 && beats[hole].time > 84)
        // ...and everything after it is the delivered chain again.
        #expect(try #require(await pipeline.status().first).counters.gapsByRule == ["connection": 1, "lost-notification": 1])
    }

    @Test func anRRLessNotificationAtAHighHeartRateIsAMissingBeat() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, strap(seconds: 100, rrLess: [85]))
        await pipeline.finishAll(reason: .shutdown)
        #expect(sink.contents.absoluteBeats.filter(\.gap).count == 2)
        #expect(try #require(await pipeline.status().first).counters.gapsByRule == ["connection": 1, "missing-rr": 1])
    }

    /// Issue 30: a loss two to ten seconds after connecting is flagged at its beat, as later on.
    @Test(arguments: [2, 3, 5, 10])
    func aLostNotificationInTheFirstSecondsIsFlaggedAtTheBeatAfterTheHole(second: Int) async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, strap(seconds: 30, lost: [second]))
        await pipeline.finishAll(reason: .shutdown)
        let beats = sink.contents.absoluteBeats
        let flagged = beats.enumerated().filter(\.element.gap).map(\.offset)
        #expect(flagged.count == 2)
        let hole = try #require(flagged.last)
        // The hole spans the lost beat: more than one RR (0.8 s) before the beat flagged after it.
        #expect(beats[hole].time - beats[hole - 1].time > 1.0)
        #expect(abs(beats[hole + 1].time - beats[hole].time - 820.0 / 1024) < 1e-6, "the chain after it is the delivered RR")
        #expect(try #require(await pipeline.status().first).counters.gapsByRule == ["connection": 1, "lost-notification": 1])
    }

    @Test(arguments: [2, 3, 5, 10])
    func anRRLessNotificationInTheFirstSecondsIsAMissingBeat(second: Int) async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, strap(seconds: 30, rrLess: [second]))
        await pipeline.finishAll(reason: .shutdown)
        #expect(sink.contents.absoluteBeats.filter(\.gap).count == 2)
        #expect(try #require(await pipeline.status().first).counters.gapsByRule == ["connection": 1, "missing-rr": 1])
    }

    @Test func rrLessNotificationsBelowTheCadenceAreNoLoss() async throws {
        let (pipeline, sink) = makePipeline()
        // RR 1.2 s against 1 notification a second: every sixth notification has no beat, legitimately.
        await feed(pipeline, strap(seconds: 150, rr: 1229))
        await pipeline.finishAll(reason: .shutdown)
        #expect(sink.contents.absoluteBeats.filter(\.gap).count == 1)
        #expect(try #require(await pipeline.status().first).counters.gapsByRule == ["connection": 1])
    }

    @Test func withQuietLossDetectionOffTheBeatAfterALostNotificationIsNotFlagged() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(quietLossDetection: false))
        await feed(pipeline, strap(seconds: 100, lost: [85]))
        await pipeline.finishAll(reason: .shutdown)
        // The failure the model fixes: the beats after the hole are chained onto the last one before it.
        let beats = sink.contents.absoluteBeats
        let after = try #require(beats.firstIndex { $0.time > 83.5 })
        #expect(!beats[after].gap)
        #expect(try #require(await pipeline.status().first).counters.gapsByRule["lost-notification"] == nil)
    }
}
