import Foundation
import HealthModel
import IngestTestSupport
import SourceEvents
import Testing
@testable import Ingest

/// `maxValues`: a heart-rate or energy series that fills rotates the set before the next notification, so an open
/// series stays bounded at any notification rate, every value is stored and the beat chain continues unflagged.
@Suite struct ValueLimitRotationTests {
    /// A resting strap (60 bpm) notifying `rate` times a second: every notification carries a heart rate; the RR of
    /// each beat (1 s) comes in the first notification after it, so RR is in one notification of `rate`.
    func restingStrap(rate: Int, seconds: Int, energy: Bool = false) -> [SourceEvent] {
        (0..<(rate * seconds)).map { i in
            let rr: [UInt16] = i % rate == 0 ? [1024] : []
            return notification(1 + Double(i) / Double(rate),
                                hrm(60 + UInt16(i % 7), rr: rr, energy: energy ? UInt16(i) : nil))
        }
    }

    @Test func aFullHeartRateSeriesRotatesTheSetAndKeepsEveryValueAndBeat() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(maxValues: 10))
        let events = restingStrap(rate: 4, seconds: 12)
        await feed(pipeline, events)
        await pipeline.finishAll(reason: .shutdown)
        let heartRate = sink.contents.quantities(.heartRate)
        #expect(heartRate.map(\.count) == [10, 10, 10, 10, 8])
        #expect(heartRate.map { $0.metadata[MetadataKey.finishReason] }
                == ["max-values", "max-values", "max-values", "max-values", "shutdown"])
        // Every notification's value is stored once, in arrival order, across the series.
        let values = heartRate.flatMap { $0.points.map(\.value) }
        let sent: [Double] = (0..<events.count).map { (i: Int) -> Double in Double(60 + i % 7) }
        #expect(values == sent)
        // The heartbeat series rotate with the set, and only the very first beat is flagged: nothing is missing.
        let beats = sink.contents.absoluteBeats
        #expect(beats.count == 13)
        #expect(beats.map(\.gap) == [true] + Array(repeating: false, count: 12))
        for (i, beat) in beats.enumerated() { #expect(abs(beat.time - Double(i)) < 1e-6) }
        #expect(sink.contents.heartbeatSeries.count == 5)
        let counters = try #require(await pipeline.status().first).counters
        #expect(counters.beats == 13 && counters.droppedBeatsOutOfOrder == 0 && counters.builderErrors == 0)
    }

    @Test func aFullEnergySeriesRotatesTheSetToo() async throws {
        // bpm 0 is skipped, so only the energy series grows: one increment per notification after the baseline.
        let (pipeline, sink) = makePipeline(IngestSettings(maxValues: 5))
        await feed(pipeline, (0..<16).map { notification(1 + Double($0), hrm(0, energy: UInt16(10 * $0))) })
        await pipeline.finishAll(reason: .shutdown)
        let energy = sink.contents.quantities(.activeEnergyBurned)
        #expect(energy.map(\.count) == [5, 5, 5])
        #expect(energy.map { $0.metadata[MetadataKey.finishReason] } == ["max-values", "max-values", "shutdown"])
        #expect(energy.flatMap { $0.points.map(\.value) }.reduce(0, +) == 150)
    }
}
