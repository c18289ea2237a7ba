import Foundation
import HealthModel
import Logging
import Posix
import Synchronization

/// A `SeriesSink` that never makes its caller wait for the disk: finished series, checkpoints and devices are
/// queued and written, in that order of arrival, by one writer (a thread of its own, `heartd-store`) into `inner`.
///
/// Live capture calls the pipeline on the thread that reads BlueZ; with the store behind this sink an SD card
/// that stalls for seconds delays no notification and no arrival time. The writer wakes once per call when it is
/// idle — the pipeline calls at most once per checkpoint interval and once per finished series — and drains
/// whatever gathered meanwhile (pending checkpoints of a series are merged into one: `SeriesCheckpoint.followed`).
/// A failing `inner` keeps finished series in the same bounded `SinkBuffer` the pipeline uses, retried every
/// second; a failed checkpoint is kept, merged with the newer ones, and the pipeline's next `writeCheckpoints`
/// throws so that it sends every series whole.
///
/// The writer runs from `start()` to `stop()` (the daemon's `StoreWriterService`).
///
/// Why a plain thread blocked on a `WakeSignal`, not a dispatch queue: each drain woke a libdispatch worker through
/// the pool's machinery, and the pool's monitor ticks every second once a worker ran. It ends with the sink.
public final class BackgroundSink: SeriesSink, Sendable {
    private struct State {
        var buffer: SinkBuffer
        /// Open-series checkpoints waiting, one per series (merged), in first-arrival order. A few series per
        /// sensor: searched, not hashed.
        var checkpoints: [SeriesCheckpoint] = []
        /// A checkpoint write failed (or did not follow) since the pipeline last called: it must send whole series.
        var checkpointsFailed = false
        /// The writer is writing checkpoints it took from `checkpoints`.
        var checkpointsInFlight = false
        var devices: [String: DeviceInfo] = [:]
        /// The batch being written (still counted as queued in `status`).
        var inFlight: PendingBatch?
        /// A drain is queued, running, or waiting to retry: calls then only add work.
        var scheduled = false
        var failing = false
        /// `start()` ran; `stop()` ran.
        var writerStarted = false
        var stopped = false

        var isEmpty: Bool { buffer.isEmpty && checkpoints.isEmpty && devices.isEmpty }
    }

    private let inner: any SeriesSink
    private let logger: Logger
    private let wake: WakeSignal
    private let state: Mutex<State>
    /// Seconds between retries while `inner` fails.
    private let retryInterval: Double
    /// Added to the log lines that say writes began failing and work again (the daemon's `MESSAGE_ID`s).
    private let outageMetadata: Logger.Metadata
    private let recoveryMetadata: Logger.Metadata

    public init(_ inner: any SeriesSink, memoryBufferBeats: Int, retryInterval: Double = 1,
                logger: Logger = Logger(label: "heartd.store", factory: { _ in SwiftLogNoOpLogHandler() }),
                outageMetadata: Logger.Metadata = [:], recoveryMetadata: Logger.Metadata = [:]) {
        self.inner = inner
        self.logger = logger
        self.outageMetadata = outageMetadata
        self.recoveryMetadata = recoveryMetadata
        self.retryInterval = retryInterval
        state = Mutex(State(buffer: SinkBuffer(capacityBeats: memoryBufferBeats)))
        // A pipe cannot be created only when the process is out of descriptors; nothing could be stored then.
        guard let wake = try? WakeSignal() else { fatalError("the store writer cannot create its wake-up pipe") }
        self.wake = wake
    }

    /// Starts the writer, a thread of its own (`heartd-store`); what was handed over before waits for it. Once.
    /// It ends at `stop()`, or when the sink is released.
    public func start() {
        let first = state.withLock { s -> Bool in
            defer { s.writerStarted = true }
            return !s.writerStarted
        }
        guard first else { return }
        let thread = Thread { [weak self, wake] in
            CurrentThread.setName("heartd-store")
            CurrentThread.setBatchScheduling()
            var retryAfter: Double?
            while true {
                wake.wait(timeout: retryAfter)
                // Released (`deinit` woke us to end) or stopped.
                guard let sink = self, !sink.state.withLock({ $0.stopped }) else { return }
                retryAfter = sink.write() ? nil : sink.retryInterval
            }
        }
        thread.name = "heartd.store-writer"
        thread.start()
    }

    /// Ends the writer after the pass it is in; what is still queued stays queued (`drain` first to write it).
    public func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    deinit { wake.signal() }

    /// Queues finished samples; never throws (failures are retried by the writer and shown in `status`).
    public func save(_ samples: [Sample], closingCheckpoints: [UUID]) {
        let batch = PendingBatch(samples: samples, closingCheckpoints: closingCheckpoints)
        let dropped = state.withLock { s -> [PendingBatch] in
            // A snapshot of a series that is now finished need not be written any more.
            if !s.checkpoints.isEmpty, !closingCheckpoints.isEmpty {
                s.checkpoints.removeAll { closingCheckpoints.contains($0.uuid) }
            }
            return s.buffer.enqueue(batch)
        }
        if !dropped.isEmpty {
            logger.error("store unavailable too long: dropped oldest finished samples", metadata: [
                "samples": "\(dropped.reduce(0) { $0 + $1.samples.count })",
                "beats": "\(dropped.reduce(0) { $0 + $1.weight })"])
        }
        schedule()
    }

    /// Queues checkpoints; throws when a checkpoint write failed since the last call (the pipeline then sends every
    /// series whole at the next interval: the store may hold less than it handed over). What `open` brings is
    /// queued either way.
    public func writeCheckpoints(_ open: [SeriesCheckpoint]) throws {
        if appendWhileIdle(open) { return }
        let resend = state.withLock { s -> Bool in
            let inStep = Self.merge(open, after: &s.checkpoints)
            defer { s.checkpointsFailed = false }
            return s.checkpointsFailed || !inStep
        }
        schedule()
        if resend { throw SinkError(.unavailable, "a checkpoint write failed: the next checkpoint sends whole series") }
    }

    /// With the writer idle and nothing queued or failed, `inner` may append the checkpoints on this thread (a file
    /// append of a few hundred bytes: `SeriesSink.appendCheckpointsWithoutWaiting`), which spares the writer's
    /// wake-up — at one notification a second that wake-up was most of what a checkpoint cost. The writer cannot
    /// start meanwhile: only this thread (the pipeline's) schedules it, and it is not failing (no retry timer).
    private func appendWhileIdle(_ open: [SeriesCheckpoint]) -> Bool {
        let idle = state.withLock { s in
            s.writerStarted && !s.stopped && !s.scheduled && !s.failing && !s.checkpointsFailed && s.isEmpty
                && s.inFlight == nil
        }
        return idle && inner.appendCheckpointsWithoutWaiting(open)
    }

    public func upsertDevice(_ device: DeviceInfo) {
        state.withLock { $0.devices[device.localIdentifier ?? ""] = device }
        schedule()
    }

    /// Queue and failure counters (what `status` shows as `store.sink`).
    public var status: SinkStatus {
        state.withLock { s in
            var status = s.buffer.status
            if let batch = s.inFlight {
                status.queuedBatches += 1
                status.queuedBeats += batch.weight
            }
            return status
        }
    }

    /// Whether everything handed over has been written.
    public var isIdle: Bool { state.withLock { !$0.scheduled && $0.isEmpty } }

    /// Waits until everything queued is written, or `timeout` seconds; returns whether it was (shutdown).
    public func drain(timeout: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !isIdle {
            guard Date() < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    private func schedule() {
        let start = state.withLock { s -> Bool in
            if s.scheduled { return false }
            s.scheduled = true
            return true
        }
        if start { wake.signal() }
    }

    /// What one pass takes out of the queue.
    private enum Work {
        case devices([DeviceInfo])
        case checkpoints([SeriesCheckpoint])
        case batch(PendingBatch)
    }

    /// Writes until nothing is left (true); on a failure, puts the work back and returns false: the writer retries
    /// after `retryInterval`.
    private func write() -> Bool {
        while true {
            let work = state.withLock { s -> Work? in
                if !s.devices.isEmpty {
                    defer { s.devices = [:] }
                    return .devices(s.devices.keys.sorted().compactMap { s.devices[$0] })
                }
                if !s.checkpoints.isEmpty {
                    defer { s.checkpoints = []; s.checkpointsInFlight = true }
                    return .checkpoints(s.checkpoints)
                }
                if let batch = s.buffer.takeFirst() {
                    s.inFlight = batch
                    return .batch(batch)
                }
                s.scheduled = false
                return nil
            }
            guard let work else { return true }
            do {
                switch work {
                case .devices(let devices): for device in devices { try inner.upsertDevice(device) }
                case .checkpoints(let open): try inner.writeCheckpoints(open)
                case .batch(let batch): try inner.save(batch.samples, closingCheckpoints: batch.closingCheckpoints)
                }
            } catch {
                putBack(work, after: error)
                return false
            }
            let recovered = state.withLock { s -> Date? in
                defer { s.inFlight = nil; s.checkpointsInFlight = false }
                guard s.failing, s.isEmpty else { return nil }
                s.failing = false
                return s.buffer.recordRecovery()
            }
            if let since = recovered {
                logger.notice("store writes again; saved what was waiting in memory", metadata: recoveryMetadata.merging([
                    "failingSeconds": "\(Int(Date().timeIntervalSince(since).rounded()))",
                ]) { a, _ in a })
            }
        }
    }

    private func putBack(_ work: Work, after error: any Error) {
        let firstFailure = state.withLock { s -> Bool in
            switch work {
            case .devices(let devices):
                for d in devices where s.devices[d.localIdentifier ?? ""] == nil { s.devices[d.localIdentifier ?? ""] = d }
                s.buffer.recordFailure(error)
            case .checkpoints(let open):
                // The failed ones go first; newer ones that came in meanwhile follow them.
                var pending = open
                _ = Self.merge(s.checkpoints, after: &pending)
                s.checkpoints = pending
                s.checkpointsFailed = true
                s.checkpointsInFlight = false
                s.buffer.recordFailure(error, checkpoint: true)
            case .batch(let batch):
                s.inFlight = nil
                s.buffer.putBack(batch)
                s.buffer.recordFailure(error)
            }
            defer { s.failing = true }
            return !s.failing
        }
        // Warn once per outage; the retries log at debug.
        var metadata: Logger.Metadata = ["error": "\(error)", "queuedBeats": "\(status.queuedBeats)"]
        if firstFailure { metadata.merge(outageMetadata) { a, _ in a } }
        logger.log(level: firstFailure ? .error : .debug, "store cannot write; keeping the data in memory and retrying",
                   metadata: metadata)
    }
}
