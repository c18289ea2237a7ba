import Foundation
import HealthModel
import IngestTestSupport
import SourceEvents
import TestBus
import Testing
@testable import Ingest

/// Checkpoints as changes: after its first, whole, checkpoint a series hands over only what it appended, and
/// applied to what the store holds that gives exactly the open series; anything but an append sends it whole.
@Suite struct CheckpointChangeTests {
    @Test func aCheckpointAfterAppendsSendsOnlyWhatWasAppendedAndGivesTheOpenSeries() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [connected(0, device: DeviceInfo(name: "C"))])
        for second in 1...30 {
            // One beat a second and a heart-rate value; energy every 10 s.
            await feed(pipeline, [notification(Double(second), hrm(60, rr: [1024], energy: second % 10 == 0 ? UInt16(second) : nil))])
            let open = pipeline.openSeries(now: at(Double(second)))
            let held = sink.contents.checkpoints
            #expect(open.count == held.count, "second \(second)")
            for sample in open {
                #expect(held[sample.uuid] == sample, "second \(second): the checkpoints applied differ from the open series")
            }
        }
        let log = sink.contents.checkpointLog
        #expect(log.count == 30)
        var seen: Set<UUID> = []
        var appends = 0
        for call in log {
            for checkpoint in call {
                defer { seen.insert(checkpoint.uuid) }
                guard case .appended(let change) = checkpoint else {
                    #expect(!seen.contains(checkpoint.uuid), "a series sent whole again: \(checkpoint)")
                    continue
                }
                appends += 1
                #expect(seen.contains(change.uuid), "an append before the series was sent whole")
                switch change.items {
                case .beats(let beats):
                    #expect(beats.count == 1 && change.keeping == change.after, "one new beat, nothing rewritten")
                case .points(let points):
                    #expect(points.count <= 2 && change.keeping >= change.after - 1,
                            "the held value and the new one at most: \(points.count) points, keeping \(change.keeping) of \(change.after)")
                }
            }
        }
        #expect(seen.count >= 2 && appends >= 2 * 28, "\(appends) appends of \(seen.count) series")
    }

    @Test func aDeviceChangeOrAFailedWriteSendsEverySeriesWhole() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [connected(0, device: DeviceInfo(name: "C"))])
        for second in 1...4 { await feed(pipeline, [notification(Double(second), hrm(60, rr: [1024]))]) }
        func lastCall() -> [SeriesCheckpoint] { sink.contents.checkpointLog.last ?? [] }
        func whole(_ call: [SeriesCheckpoint]) -> Bool {
            !call.isEmpty && call.allSatisfy { if case .full = $0 { true } else { false } }
        }
        #expect(!whole(lastCall()), "appends while nothing else changed")
        // The device's information is learnt after connecting: the series get it, and go whole to the store.
        await feed(pipeline, [connected(5, device: DeviceInfo(name: "C", manufacturer: "M", model: "X"))])
        await feed(pipeline, [notification(6, hrm(60, rr: [1024]))])
        #expect(whole(lastCall()), "after new device information")
        #expect(lastCall().allSatisfy { if case .full(let s) = $0 { s.device?.model == "X" } else { false } })
        await feed(pipeline, [notification(7, hrm(60, rr: [1024]))])
        #expect(!whole(lastCall()))
        // A failed write: the store may hold less than was handed over.
        sink.setFailing(true)
        await feed(pipeline, [notification(8, hrm(60, rr: [1024]))])
        sink.setFailing(false)
        let calls = sink.contents.checkpointLog.count
        await feed(pipeline, [notification(9, hrm(60, rr: [1024]))])
        #expect(sink.contents.checkpointLog.count == calls + 1)
        #expect(whole(lastCall()), "after a failed write")
        let open = pipeline.openSeries(now: at(9))
        for sample in open { #expect(sink.contents.checkpoints[sample.uuid] == sample) }
    }

    @Test func aBackgroundSinkKeepsAFailedCheckpointMergedAndAsksForWholeSeries() async throws {
        let inner = InMemorySeriesSink()
        let store = BackgroundSink(inner, memoryBufferBeats: 100, retryInterval: 0.02)
        store.start()
        let pipeline = IngestPipeline(sink: store)
        await feed(pipeline, [connected(0)])
        for second in 1...3 { await feed(pipeline, [notification(Double(second), hrm(60, rr: [1024]))]) }
        #expect(await store.drain(timeout: 10))
        inner.setFailing(true)
        for second in 4...6 { await feed(pipeline, [notification(Double(second), hrm(60, rr: [1024]))]) }
        // A write fails after the last checkpoint was handed over (the writer retries every 0.02 s), so the pipeline
        // has not been told yet: it will be at its next call.
        let failuresBefore = store.status.checkpointFailures
        #expect(await eventually { store.status.checkpointFailures > failuresBefore })
        inner.setFailing(false)
        #expect(await store.drain(timeout: 10))
        // The appends of 4 to 6 s were merged and written after the failure; the pipeline learns of the failure at
        // its next call and sends whole series at the one after.
        let before = inner.contents.checkpointLog.count
        await feed(pipeline, [notification(7, hrm(60, rr: [1024])), notification(8, hrm(60, rr: [1024]))])
        #expect(await store.drain(timeout: 10))
        #expect(await pipeline.sinkStatus().checkpointFailures > 0)
        let written = inner.contents.checkpointLog.dropFirst(before)
        #expect(written.last.map { call in call.allSatisfy { if case .full = $0 { true } else { false } } } == true,
                "after a failed write the pipeline sends whole series: \(written)")
        for sample in pipeline.openSeries(now: at(8)) { #expect(inner.contents.checkpoints[sample.uuid] == sample) }
    }
}
