import Foundation
import HealthModel
import Testing
@testable import Ingest

/// One scenario per gap rule: the first beat after the event is flagged, counted under its rule.
@Suite struct GapRuleTests {
    @Test func firstBeatAfterConnectionAndReconnectionIsFlagged() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            connected(0), notification(1, hrm(rr: [1024])), notification(2, hrm(rr: [1024])),
            .disconnected(address: addressA, reason: .linkLost, at: at(2.5)),
            connected(3), notification(4, hrm(rr: [1024])),
        ])
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        try #require(series.count == 2)
        #expect(series[0].beats == [Beat(offset: 0, precededByGap: true), Beat(offset: 1, precededByGap: false),
                                    Beat(offset: 2, precededByGap: false)])
        #expect(series[0].start == at(0).wall)
        #expect(series[1].beats == [Beat(offset: 0, precededByGap: true), Beat(offset: 1, precededByGap: false)])
        #expect(series[1].start == at(3).wall)
        let counters = try #require(await pipeline.status().first).counters
        #expect(counters.gapsByRule == ["connection": 2])
    }

    @Test func contactRegainedFlagsTheNextBeatAndSkipsValuesWithoutContact() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            notification(1, hrm(rr: [1024])), notification(2, hrm(rr: [1024])),
            notification(3, hrm(rr: [1024], contact: .notDetected)),
            notification(4, hrm(rr: [1024])),
        ])
        await pipeline.finishAll(reason: .shutdown)
        let beats = sink.contents.absoluteBeats
        #expect(beats.map(\.time) == [0, 1, 2, 3, 4])
        #expect(beats.map(\.gap) == [true, false, false, true, false])
        let counters = try #require(await pipeline.status().first).counters
        #expect(counters.gapsByRule["contact-regained"] == 1)
        #expect(counters.skippedRRNoContact == 1)
        #expect(counters.skippedHRNoContact == 1)
    }

    /// A notification without contact that carried no RR dropped no beat: the next RR starts from the last beat
    /// stored, so re-anchoring there would store that beat a second time (contact-flap runs did, 3 in 62 831).
    @Test func contactLostWithoutRRValuesStoresNoBeatTwice() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            notification(1, hrm(rr: [1024])), notification(2, hrm(rr: [1024])),
            notification(3, hrm(rr: [], contact: .notDetected)),
            notification(4, hrm(rr: [1536])),
        ])
        await pipeline.finishAll(reason: .shutdown)
        let beats = sink.contents.absoluteBeats
        #expect(beats.map(\.time) == [0, 1, 2, 3.5])
        #expect(beats.map(\.gap) == [true, false, false, false])
        #expect(try #require(await pipeline.status().first).counters.gapsByRule == ["connection": 1])
    }

    /// The loud rule alone: a 1 s RR across a 3 s pause is, to the timeline model, two lost beats (its RR span).
    @Test func notificationsMissingLongerThanTheThresholdFlagTheNextBeat() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(quietLossDetection: false))
        await feed(pipeline, [
            notification(1, hrm(rr: [1024])), notification(2, hrm(rr: [1024])),
            notification(5, hrm(rr: [1024])),       // 3 s later: not more than the threshold
            notification(8.5, hrm(rr: [1024])),     // 3.5 s later: gap
        ])
        await pipeline.finishAll(reason: .shutdown)
        let beats = sink.contents.absoluteBeats
        #expect(beats.map(\.time) == [0, 1, 2, 3, 7.5, 8.5])
        #expect(beats.map(\.gap) == [true, false, false, false, true, false])
        #expect(try #require(await pipeline.status().first).counters.gapsByRule["notification-gap"] == 1)
    }

    /// The loud rule alone: half a second of RR a second is, to the timeline model, a beat lost per notification.
    @Test func chainDisagreeingWithTheClockIsReanchored() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(quietLossDetection: false))
        // RR says 0.5 s per notification while the clock says 1 s: the chain falls 0.5 s behind per notification,
        // 2.5 s at the 6th: re-anchored there (last RR ends at the arrival).
        let events = (1...8).map { notification(Double($0), hrm(rr: [512])) }
        await feed(pipeline, events)
        await pipeline.finishAll(reason: .shutdown)
        let beats = sink.contents.absoluteBeats
        #expect(beats.map(\.time) == [0.5, 1, 1.5, 2, 2.5, 3, 5.5, 6, 6.5, 7])
        #expect(beats.map(\.gap) == [true, false, false, false, false, false, true, false, false, false])
        #expect(try #require(await pipeline.status().first).counters.gapsByRule == ["connection": 1, "clock-drift": 1])
    }

    @Test func implausibleRRIsDroppedAndTheNextBeatFlagged() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            notification(1, hrm(rr: [1024])),
            notification(3.1, hrm(rr: [1024, 100, 1024])),  // 100/1024 s ≈ 98 ms: not a beat
            notification(4.1, hrm(rr: [0, 1024])),
            notification(5.1, hrm(rr: [1024, 3000])),      // ≈ 2930 ms: too long
        ])
        await pipeline.finishAll(reason: .shutdown)
        let beats = sink.contents.absoluteBeats
        let expected: [(Double, Bool)] = [(0, true), (1, false), (2, false), (2.1, true), (3.1, false), (4.1, true), (5.1, false)]
        #expect(beats.count == expected.count)
        for (beat, want) in zip(beats, expected) {
            #expect(abs(beat.time - want.0) < 1.0 / 1024)
            #expect(beat.gap == want.1)
        }
        let counters = try #require(await pipeline.status().first).counters
        #expect(counters.droppedRR == 3)
        #expect(counters.gapsByRule["implausible-rr"] == 2)
        // The anchor after the 0 RR falls on the previous beat (a double detection): dropped, not duplicated.
        #expect(counters.droppedBeatsOutOfOrder == 1)
    }

    @Test func monotonicClockGoingBackwardsNeverProducesOutOfOrderBeats() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            notification(1, hrm(rr: [1024])), notification(2, hrm(rr: [1024])),
            notification(-10, hrm(rr: [1024])),  // replay time jumps back 12 s
            notification(-9, hrm(rr: [1024])),
            notification(-8.5, hrm(rr: [512])),
            notification(-8.6, hrm(rr: [])),     // 0.1 s back: jitter within the tolerance, no gap
            notification(-7.5, hrm(rr: [1024])),
        ])
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        try #require(series.count == 1)
        let offsets = series[0].beats.map(\.offset)
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 })
        #expect(series[0].beats.map(\.precededByGap) == [true, false, false, true, false, false, false])
        #expect(offsets == [0, 1, 2, 3, 4, 4.5, 5.5])
        let counters = try #require(await pipeline.status().first).counters
        #expect(counters.gapsByRule["clock-backwards"] == 1)
        #expect(counters.droppedBeatsOutOfOrder == 1)
    }

    @Test func malformedPayloadsAreCountedByCodeAndBreakTheChain() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            notification(1, hrm(rr: [1024])),
            notification(2, []),                 // empty
            notification(2.5, [0x01, 72]),       // uint16 heart rate, one byte
            notification(2.7, [0x10, 72, 0x00]), // RR flag, one byte left
            notification(3, hrm(rr: [1024])),
        ])
        await pipeline.finishAll(reason: .shutdown)
        let counters = try #require(await pipeline.status().first).counters
        #expect(counters.notifications == 5)
        #expect(counters.malformedByCode == ["empty": 1, "truncated": 1, "odd-rr-bytes": 1])
        #expect(counters.gapsByRule["malformed-notification"] == 1)
        #expect(sink.contents.absoluteBeats.map(\.gap) == [true, false, true, false])
    }
}
