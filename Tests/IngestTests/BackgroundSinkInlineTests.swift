import Foundation
import HealthModel
import IngestTestSupport
import Synchronization
import TestBus
import Testing
@testable import Ingest

/// A checkpoint the inner sink can append at once (`appendCheckpointsWithoutWaiting`) is written on the caller's
/// thread while the writer is idle — no wake-up of the writer — and queued whenever the writer has anything to do,
/// so the order of writes stays the order of calls.
@Suite struct BackgroundSinkInlineTests {
    func snapshot(_ uuid: UUID, beats: Int) -> Sample {
        .heartbeatSeries(HeartbeatSeriesSample(uuid: uuid, start: Date(timeIntervalSince1970: 0),
                                               end: Date(timeIntervalSince1970: Double(beats - 1)),
                                               beats: (0..<beats).map { Beat(offset: Double($0), precededByGap: $0 == 0) },
                                               device: nil))
    }

    @Test func anIdleWriterLetsTheCallerAppend() async throws {
        let inner = InlineAppendingSink(accepts: true)
        let store = BackgroundSink(inner, memoryBufferBeats: 100)
        store.start()
        let uuid = UUID()
        try store.writeCheckpoints([.full(snapshot(uuid, beats: 2))])
        // Written before the call returned, on this thread, and the writer never ran.
        #expect(inner.inline.withLock { $0 } == 1)
        #expect(inner.memory.contents.checkpoints[uuid] != nil)
        #expect(inner.queued.withLock { $0 } == 0)
        #expect(store.isIdle)
    }

    @Test func aRefusedAppendGoesToTheWriter() async throws {
        let inner = InlineAppendingSink(accepts: false)
        let store = BackgroundSink(inner, memoryBufferBeats: 100)
        store.start()
        let uuid = UUID()
        try store.writeCheckpoints([.full(snapshot(uuid, beats: 2))])
        #expect(await store.drain(timeout: 10))
        #expect(inner.queued.withLock { $0 } == 1)
        #expect(inner.memory.contents.checkpoints[uuid] != nil)
    }

    @Test func aBusyOrFailingWriterKeepsTheOrder() async throws {
        let inner = InlineAppendingSink(accepts: true)
        let store = BackgroundSink(inner, memoryBufferBeats: 100, retryInterval: 0.02)
        store.start()
        let uuid = UUID()
        inner.memory.setFailing(true)
        store.save([snapshot(UUID(), beats: 3)], closingCheckpoints: [])
        #expect(await eventually { store.status.failures > 0 })
        // The writer holds a failed save: the checkpoint must queue behind it, not overtake it.
        try? store.writeCheckpoints([.full(snapshot(uuid, beats: 2))])
        #expect(inner.inline.withLock { $0 } == 0)
        inner.memory.setFailing(false)
        #expect(await store.drain(timeout: 10))
        #expect(inner.memory.contents.saved.count == 1)
        #expect(inner.memory.contents.checkpoints[uuid] != nil)
        // Idle again: the next checkpoint is the caller's.
        try store.writeCheckpoints([.full(snapshot(uuid, beats: 3))])
        #expect(inner.inline.withLock { $0 } == 1)
    }

    @Test func aStoppedWriterTakesNoInlineAppends() async throws {
        let inner = InlineAppendingSink(accepts: true)
        let store = BackgroundSink(inner, memoryBufferBeats: 100)
        try store.writeCheckpoints([.full(snapshot(UUID(), beats: 2))])  // before start(): queued
        #expect(inner.inline.withLock { $0 } == 0)
        #expect(!store.isIdle)
    }
}

/// An in-memory sink whose checkpoints may be appended at once (counted in `inline`) when `accepts`.
final class InlineAppendingSink: SeriesSink {
    let memory = InMemorySeriesSink()
    let accepts: Bool
    let inline = Mutex(0)

    init(accepts: Bool) { self.accepts = accepts }

    func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws {
        try memory.save(samples, closingCheckpoints: closingCheckpoints)
    }

    /// Checkpoints the writer wrote (`writeCheckpoints` calls).
    let queued = Mutex(0)

    func writeCheckpoints(_ open: [SeriesCheckpoint]) throws {
        queued.withLock { $0 += 1 }
        try memory.writeCheckpoints(open)
    }

    func upsertDevice(_ device: DeviceInfo) throws { try memory.upsertDevice(device) }

    func appendCheckpointsWithoutWaiting(_ open: [SeriesCheckpoint]) -> Bool {
        guard accepts, (try? memory.writeCheckpoints(open)) != nil else { return false }
        inline.withLock { $0 += 1 }
        return true
    }
}
