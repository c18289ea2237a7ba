import HealthModel
import Logging

/// Where `PipelineCore`'s effects go: devices and finished batches to the sink — kept in memory (`SinkBuffer`)
/// while it fails and retried with every event or tick —, checkpoints of the open series, live events to the
/// observer. Callers hold the pipeline's lock.
struct PipelineOutput {
    private let sink: any SeriesSink
    private let logger: Logger
    private let onLiveEvent: (@Sendable (LiveEvent) -> Void)?
    private var buffer: SinkBuffer
    private var pendingDevices: [String: DeviceInfo] = [:]
    private var sinkFailing = false
    private var checkpointsFailing = false

    init(sink: any SeriesSink, logger: Logger, capacityBeats: Int, onLiveEvent: (@Sendable (LiveEvent) -> Void)?) {
        self.sink = sink
        self.logger = logger
        self.onLiveEvent = onLiveEvent
        self.buffer = SinkBuffer(capacityBeats: capacityBeats)
    }

    /// Whether devices or finished samples wait for the sink (a retry is due).
    var hasPending: Bool { !buffer.isEmpty || !pendingDevices.isEmpty }

    /// Buffering and failure counters of the sink side.
    var status: SinkStatus { buffer.status }

    /// Queues the effects' devices and finished batches, saves what it can, and hands the live events on.
    mutating func deliver(_ effects: SessionEffects) {
        // Most ticks (a replay ticks after every event) have nothing to deliver and nothing to retry.
        if effects.batches.isEmpty, effects.devices.isEmpty, effects.live.isEmpty, buffer.isEmpty, pendingDevices.isEmpty {
            return
        }
        for device in effects.devices {
            pendingDevices[device.localIdentifier ?? ""] = device
        }
        for (batch, reason) in effects.batches {
            let dropped = buffer.enqueue(batch)
            if !dropped.isEmpty {
                logger.error("sink unavailable too long: dropped oldest finished samples", metadata: [
                    "samples": "\(dropped.reduce(0) { $0 + $1.samples.count })",
                    "beats": "\(dropped.reduce(0) { $0 + $1.weight })",
                    "totalDroppedBeats": "\(buffer.status.droppedBeats)", "reason": "\(reason.rawValue)"])
            }
        }
        flush()
        if let onLiveEvent {
            for event in effects.live { onLiveEvent(event) }
        }
    }

    /// Saves pending devices and queued batches, stopping at the first failure (retried next time).
    private mutating func flush() {
        for address in pendingDevices.isEmpty ? [] : pendingDevices.keys.sorted() {
            guard let device = pendingDevices[address] else { continue }
            do {
                try sink.upsertDevice(device)
                pendingDevices[address] = nil
            } catch {
                buffer.recordFailure(error)
                logger.warning("sink failed to save device; will retry", metadata: ["error": "\(error)"])
                return
            }
        }
        guard !buffer.isEmpty else { return }
        let before = buffer.status.queuedBatches
        if let error = buffer.flush(into: sink) {
            // Warn once per outage; the retries (every event or tick) log at debug.
            logger.log(level: sinkFailing ? .debug : .warning,
                       "sink failed to save finished samples; keeping them in memory", metadata: [
                           "error": "\(error)", "queuedBeats": "\(buffer.status.queuedBeats)"])
            sinkFailing = true
        } else if sinkFailing {
            sinkFailing = false
            _ = buffer.recordRecovery()
            logger.notice("sink recovered; saved queued samples", metadata: ["batches": "\(before)"])
        }
    }

    /// Hands checkpoints of the open series to the sink; false when that failed (the sessions then write theirs
    /// whole at the next interval).
    mutating func writeCheckpoints(_ open: [SeriesCheckpoint]) -> Bool {
        do {
            try sink.writeCheckpoints(open)
            checkpointsFailing = false
            return true
        } catch {
            buffer.recordFailure(error, checkpoint: true)
            // Warn once per outage; the retries (every interval) log at debug.
            logger.log(level: checkpointsFailing ? .debug : .warning, "checkpoint write failed; will retry whole",
                       metadata: ["error": "\(error)"])
            checkpointsFailing = true
            return false
        }
    }
}
