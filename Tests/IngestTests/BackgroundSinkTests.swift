import Foundation
import HealthModel
import IngestTestSupport
import SourceEvents
import Synchronization
import TestBus
import Testing
@testable import Ingest

/// The store writer between the pipeline and the store: the caller never waits, order is kept, a failing store
/// loses nothing below the bound and is retried on the writer's own clock.
@Suite struct BackgroundSinkTests {
    func pipeline(_ inner: InMemorySeriesSink, retry: Double = 0.05) -> (IngestPipeline, BackgroundSink) {
        let store = BackgroundSink(inner, memoryBufferBeats: 10_000, retryInterval: retry)
        store.start()
        return (IngestPipeline(settings: IngestSettings(maxBeats: 10), sink: store), store)
    }

    func beats(from: Double, count: Int) -> [SourceEvent] {
        (0..<count).map { notification(from + Double($0), hrm(0, rr: [1024])) }
    }

    @Test func everythingArrivesInOrder() async throws {
        let inner = InMemorySeriesSink()
        let (pipeline, store) = pipeline(inner)
        await feed(pipeline, beats(from: 1, count: 35))
        await pipeline.finishAll(reason: .shutdown)
        #expect(await store.drain(timeout: 10))
        let series = inner.contents.heartbeatSeries
        #expect(series.reduce(0) { $0 + $1.count } == 36)  // 35 RRs fix 36 beats
        #expect(series.map(\.start) == series.map(\.start).sorted())
        #expect(inner.contents.checkpoints.isEmpty)
        #expect(store.status == SinkStatus())
    }

    @Test func aFailingStoreIsRetriedByTheWriterAndLosesNothing() async throws {
        let inner = InMemorySeriesSink()
        let (pipeline, store) = pipeline(inner)
        inner.setFailing(true)
        await feed(pipeline, beats(from: 1, count: 25))
        await pipeline.finishAll(reason: .shutdown)
        // The pipeline handed everything over without an error: it is the writer that holds and retries it.
        #expect(await pipeline.sinkStatus().failures == 0)
        #expect(!(await store.drain(timeout: 0.3)))
        let failing = store.status
        #expect(failing.failures > 1, "retried: \(failing.failures)")
        #expect(failing.queuedBatches == 3 && failing.lastError != nil)
        inner.setFailing(false)
        #expect(await store.drain(timeout: 10))
        #expect(inner.contents.heartbeatSeries.reduce(0) { $0 + $1.count } == 26)
        #expect(store.status.queuedBatches == 0 && store.status.droppedBeats == 0)
    }

    @Test func theNewestCheckpointWinsAndASavedSeriesLeavesNone() async throws {
        let inner = InMemorySeriesSink()
        let store = BackgroundSink(inner, memoryBufferBeats: 100, retryInterval: 0.02)
        store.start()
        let uuid = UUID()
        func snapshot(_ beats: Int) -> Sample {
            .heartbeatSeries(HeartbeatSeriesSample(uuid: uuid, start: Date(timeIntervalSince1970: 0),
                                                   end: Date(timeIntervalSince1970: Double(beats - 1)),
                                                   beats: (0..<beats).map { Beat(offset: Double($0), precededByGap: $0 == 0) },
                                                   device: nil))
        }
        func beats(_ sample: Sample?) -> Int? {
            if case .heartbeatSeries(let s)? = sample { return s.beats.count }
            return nil
        }
        inner.setFailing(true)
        try? store.writeCheckpoints([.full(snapshot(2))])
        try? store.writeCheckpoints([.full(snapshot(3))])
        #expect(await eventually { store.status.checkpointFailures > 0 })
        inner.setFailing(false)
        #expect(await store.drain(timeout: 10))
        #expect(beats(inner.contents.checkpoints[uuid]) == 3, "an older snapshot came back after a newer one")
        inner.setFailing(true)
        try? store.writeCheckpoints([.full(snapshot(5))])
        store.save([snapshot(6)], closingCheckpoints: [uuid])
        inner.setFailing(false)
        #expect(await store.drain(timeout: 10))
        #expect(beats(inner.contents.saved.last) == 6)
        #expect(inner.contents.checkpoints.isEmpty)
    }

    @Test func theWriterIsAThreadOfItsOwnThatEndsWithTheSink() async throws {
        // Not a libdispatch worker (whose pool keeps a manager thread waking every second): one named thread, which
        // ends when the sink goes away.
        let recording = ThreadRecordingSink()
        var store: BackgroundSink? = BackgroundSink(recording, memoryBufferBeats: 100)
        store?.start()
        let snapshot = Sample.heartbeatSeries(HeartbeatSeriesSample(
            uuid: UUID(), start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 1),
            beats: [Beat(offset: 0, precededByGap: true), Beat(offset: 1, precededByGap: false)], device: nil))
        try store?.writeCheckpoints([.full(snapshot)])
        try store?.writeCheckpoints([.full(snapshot)])
        #expect(await store?.drain(timeout: 10) == true)
        let seen = recording.threads.withLock { $0 }
        #expect(!seen.isEmpty && seen.allSatisfy { $0.name == "heartd-store" }, "written on \(seen)")
        #expect(Set(seen.map(\.task)).count == 1, "one thread: \(seen)")
        store = nil
        let task = try #require(seen.first?.task)
        let deadline = Date().addingTimeInterval(5)
        while FileManager.default.fileExists(atPath: "/proc/\(task)"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(task)"), "the writer thread outlived its sink")
    }

    /// The writer runs from `start()` to `stop()` (the daemon's `StoreWriterService`): what is handed over before
    /// waits for it, and after `stop()` its thread is gone while the sink lives on.
    @Test func theWriterRunsFromStartToStop() async throws {
        let recording = ThreadRecordingSink()
        let store = BackgroundSink(recording, memoryBufferBeats: 100)
        let snapshot = Sample.heartbeatSeries(HeartbeatSeriesSample(
            uuid: UUID(), start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: 1),
            beats: [Beat(offset: 0, precededByGap: true), Beat(offset: 1, precededByGap: false)], device: nil))
        try store.writeCheckpoints([.full(snapshot)])
        #expect(!(await store.drain(timeout: 0.2)), "nothing is written before start()")
        #expect(recording.threads.withLock { $0.isEmpty })
        store.start()
        #expect(await store.drain(timeout: 10))
        let task = try #require(recording.threads.withLock { $0.first?.task })
        store.stop()
        let deadline = Date().addingTimeInterval(5)
        while FileManager.default.fileExists(atPath: "/proc/\(task)"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(task)"), "the writer thread outlived stop()")
    }
}

/// A sink that notes the thread each write runs on (its kernel name, and `PID/task/TID`).
final class ThreadRecordingSink: SeriesSink {
    let inner = InMemorySeriesSink()
    let threads = Mutex<[(name: String, task: String)]>([])

    private func note() {
        let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
        let task = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? "?"
        threads.withLock { $0.append((name.trimmingCharacters(in: .whitespacesAndNewlines), task)) }
    }

    func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws {
        note()
        try inner.save(samples, closingCheckpoints: closingCheckpoints)
    }

    func writeCheckpoints(_ open: [SeriesCheckpoint]) throws {
        note()
        try inner.writeCheckpoints(open)
    }

    func upsertDevice(_ device: DeviceInfo) throws {
        note()
        try inner.upsertDevice(device)
    }
}
