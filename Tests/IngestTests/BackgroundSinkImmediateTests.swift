import Foundation
import Glibc
import HealthModel
import IngestTestSupport
import SourceEvents
import Synchronization
import Testing
@testable import Ingest

/// A sink that takes checkpoints on the caller's thread when told it can (`accepting`), records which thread every
/// call came from, and can hold its queued checkpoint writes at a gate (a store writer busy with them).
final class ImmediateRecordingSink: ImmediateCheckpointSink {
    let inner = InMemorySeriesSink()
    struct Calls {
        var immediate: [pthread_t] = []
        var queued: [pthread_t] = []
        var accepting = true
        var gateOpen = true
    }
    let calls = Mutex(Calls())

    func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws {
        try inner.save(samples, closingCheckpoints: closingCheckpoints)
    }

    func writeCheckpoints(_ open: [SeriesCheckpoint]) throws {
        calls.withLock { $0.queued.append(pthread_self()) }
        while !calls.withLock({ $0.gateOpen }) { usleep(1000) }
        try inner.writeCheckpoints(open)
    }

    func writeCheckpointsWithoutWaiting(_ open: [SeriesCheckpoint]) -> Bool {
        guard calls.withLock({ c in c.immediate.append(pthread_self()); return c.accepting }) else { return false }
        return (try? inner.writeCheckpoints(open)) != nil
    }

    func upsertDevice(_ device: DeviceInfo) throws { try inner.upsertDevice(device) }
}

@Suite struct BackgroundSinkImmediateTests {
    static func checkpoint(_ uuid: UUID, beats: Int) -> SeriesCheckpoint {
        .full(.heartbeatSeries(HeartbeatSeriesSample(
            uuid: uuid, start: Date(timeIntervalSince1970: 0), end: Date(timeIntervalSince1970: Double(beats - 1)),
            beats: (0..<beats).map { Beat(offset: Double($0), precededByGap: $0 == 0) }, device: nil)))
    }

    static func beats(_ sample: Sample?) -> Int? {
        if case .heartbeatSeries(let s)? = sample { return s.beats.count }
        return nil
    }

    @Test func checkpointsAreWrittenOnTheCallersThreadAndTheWriterStaysAsleep() async throws {
        let sink = ImmediateRecordingSink()
        let store = BackgroundSink(sink, memoryBufferBeats: 10_000)
        let pipeline = IngestPipeline(settings: IngestSettings(checkpointInterval: 0), sink: store)
        let caller = pthread_self()
        for i in 0..<20 { pipeline.handleNow([notification(1 + Double(i), hrm(60, rr: [1024]))], tickWithEventTime: true) }
        let calls = sink.calls.withLock { $0 }
        #expect(calls.immediate.count >= 19, "every checkpoint taken at once: \(calls.immediate.count)")
        #expect(calls.immediate.allSatisfy { pthread_equal($0, caller) != 0 })
        #expect(calls.queued.isEmpty, "the store writer wrote no checkpoint")
        #expect(Self.beats(sink.inner.contents.checkpoints.values.first { Self.beats($0) != nil }) == 21)
        await pipeline.finishAll(reason: .shutdown)
        #expect(await store.drain(timeout: 10))
        #expect(sink.inner.contents.checkpoints.isEmpty && sink.inner.contents.saved.count >= 1)
    }

    @Test func checkpointsQueueBehindOnesTheWriterIsWritingAndKeepTheirOrder() async throws {
        let sink = ImmediateRecordingSink()
        let store = BackgroundSink(sink, memoryBufferBeats: 10_000)
        let uuid = UUID()
        // The first cannot be taken at once (its series' base is elsewhere, the lock is busy …): the writer takes it
        // and is held inside the write.
        sink.calls.withLock { $0.accepting = false; $0.gateOpen = false }
        try store.writeCheckpoints([Self.checkpoint(uuid, beats: 2)])
        while sink.calls.withLock({ $0.queued.isEmpty }) { try await Task.sleep(for: .milliseconds(2)) }
        sink.calls.withLock { $0.accepting = true }
        try store.writeCheckpoints([Self.checkpoint(uuid, beats: 3)])
        try store.writeCheckpoints([Self.checkpoint(uuid, beats: 4)])
        #expect(sink.calls.withLock { $0.immediate.count } == 1, "nothing overtakes a checkpoint being written")
        sink.calls.withLock { $0.gateOpen = true }
        #expect(await store.drain(timeout: 10))
        #expect(Self.beats(sink.inner.contents.checkpoints[uuid]) == 4, "an older checkpoint came last")
        #expect(sink.inner.contents.checkpointLog.flatMap { $0 }.count == 2, "the two waiting were merged into one")
        // In step again: the next goes at once.
        try store.writeCheckpoints([Self.checkpoint(uuid, beats: 5)])
        #expect(sink.calls.withLock { $0.immediate.count } == 2)
        #expect(Self.beats(sink.inner.contents.checkpoints[uuid]) == 5)
    }

    @Test func afterAFailedCheckpointThePipelineIsToldToResendWhole() async throws {
        let sink = ImmediateRecordingSink()
        let store = BackgroundSink(sink, memoryBufferBeats: 10_000, retryInterval: 0.02)
        let uuid = UUID()
        sink.calls.withLock { $0.accepting = false }
        sink.inner.setFailing(true)
        try store.writeCheckpoints([Self.checkpoint(uuid, beats: 2)])
        while store.status.checkpointFailures == 0 { try await Task.sleep(for: .milliseconds(2)) }
        sink.calls.withLock { $0.accepting = true }
        #expect(throws: SinkError.self) { try store.writeCheckpoints([Self.checkpoint(uuid, beats: 3)]) }
        #expect(sink.calls.withLock { $0.immediate.count } == 1, "not taken at once while a failed one waits")
        sink.inner.setFailing(false)
        #expect(await store.drain(timeout: 10))
        #expect(Self.beats(sink.inner.contents.checkpoints[uuid]) == 3)
    }
}
