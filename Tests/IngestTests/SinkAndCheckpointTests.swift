import Foundation
import HealthModel
import SourceEvents
import Testing
@testable import Ingest

@Suite struct SinkBufferingTests {
    /// Beats only (bpm 0 adds no heart-rate series), one per second.
    func beats(from: Double, count: Int) -> [SourceEvent] {
        (0..<count).map { notification(from + Double($0), hrm(0, rr: [1024])) }
    }

    @Test func nothingIsLostWhileUnderTheBound() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(maxBeats: 10))
        await feed(pipeline, beats(from: 1, count: 5))
        sink.setFailing(true)
        await feed(pipeline, beats(from: 6, count: 40))
        #expect(sink.contents.saved.isEmpty)
        let queued = await pipeline.sinkStatus()
        #expect(queued.queuedBatches == 4)
        #expect(queued.droppedSamples == 0)
        #expect(queued.failures > 0)
        sink.setFailing(false)
        await pipeline.tick(now: at(46))
        #expect(await pipeline.sinkStatus().queuedBatches == 0)
        await pipeline.finishAll(reason: .shutdown)
        let series = sink.contents.heartbeatSeries
        #expect(series.reduce(0) { $0 + $1.count } == 46)
        // Saved in order, and every checkpoint closed by the save of its series.
        #expect(sink.contents.saved.filter { $0.typeIdentifier == Sample.heartbeatSeriesIdentifier }.map(\.start)
                == series.map(\.start))
        #expect(sink.contents.checkpoints.isEmpty)
    }

    @Test func beyondTheBoundTheOldestAreDroppedAndCounted() async throws {
        // Each finished batch weighs 11: 10 beats plus one HRV sample.
        let (pipeline, sink) = makePipeline(IngestSettings(maxBeats: 10, memoryBufferBeats: 25))
        sink.setFailing(true)
        await feed(pipeline, beats(from: 1, count: 50))
        let status = await pipeline.sinkStatus()
        #expect(status.queuedBeats <= 25)
        #expect(status.queuedBatches == 2)
        #expect(status.droppedSamples == 6)
        #expect(status.droppedBeats == 33)
        sink.setFailing(false)
        await pipeline.finishAll(reason: .shutdown)
        let saved = sink.contents.heartbeatSeries
        #expect(saved.map(\.count) == [10, 10, 1])
        // The newest survive: the last saved series ends at the last beat.
        #expect(sink.contents.absoluteBeats.last?.time == 50)
        #expect(sink.contents.absoluteBeats.first?.time == 30)
    }

    @Test func devicesAreRetriedAfterAFailure() async throws {
        let (pipeline, sink) = makePipeline()
        sink.setFailing(true)
        await pipeline.handle(connected(0, device: DeviceInfo(name: "X")))
        sink.setFailing(false)
        await pipeline.tick(now: at(0.5))
        await pipeline.handle(notification(1, hrm()))
        #expect(sink.contents.devices[addressA]?.name == "X")
    }
}

@Suite struct CheckpointTests {
    @Test func checkpointEqualsTheOpenSeries() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            connected(0, device: DeviceInfo(name: "C")),
            notification(1, hrm(60, rr: [1024], energy: 10)),
            notification(2, hrm(62, rr: [1000], energy: 12)),
            notification(3, hrm(64, rr: [1050], energy: 15)),
        ])
        // feed() ticked at 3 s, more than checkpointInterval after the previous one: checkpoint written then.
        let checkpoints = sink.contents.checkpoints
        #expect(checkpoints.count == 3)
        await pipeline.finishAll(reason: .shutdown, at: at(3))
        let finished = sink.contents.saved.filter { $0.typeIdentifier != QuantityType.heartRateVariabilitySDNN.identifier }
        #expect(finished.count == 3)
        for sample in finished {
            var expected = try #require(checkpoints[sample.uuid])
            switch expected {
            case .heartbeatSeries(var s):
                s.metadata[MetadataKey.finishReason] = "shutdown"
                expected = .heartbeatSeries(s)
            case .quantity(var q):
                q.metadata[MetadataKey.finishReason] = "shutdown"
                expected = .quantity(q)
            }
            #expect(sample == expected)
        }
        #expect(sink.contents.checkpoints.isEmpty)
    }

    @Test func checkpointsAreWrittenAtMostEveryIntervalAndOnlyWhenChanged() async throws {
        let (pipeline, sink) = makePipeline(IngestSettings(checkpointInterval: 5))
        await pipeline.handle(notification(1, hrm(60, rr: [1024])))
        await pipeline.tick(now: at(1))
        let first = try #require(sink.contents.checkpoints.values.first { $0.typeIdentifier == Sample.heartbeatSeriesIdentifier })
        await pipeline.handle(notification(2, hrm(60, rr: [1024])))
        await pipeline.tick(now: at(2))
        #expect(sink.contents.checkpoints[first.uuid] == first)
        await pipeline.tick(now: at(6))
        guard case .heartbeatSeries(let s)? = sink.contents.checkpoints[first.uuid] else {
            Issue.record("no heartbeat checkpoint")
            return
        }
        #expect(s.count == 3)
    }
}
