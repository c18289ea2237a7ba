import Foundation
import HealthModel

/// Finished samples waiting to be saved, with the checkpoints they close.
struct PendingBatch: Sendable {
    var samples: [Sample]
    var closingCheckpoints: [UUID]

    /// Size in "beats": beats of heartbeat series plus points of quantity samples (at least 1).
    var weight: Int {
        max(1, samples.reduce(0) { total, sample in
            switch sample {
            case .heartbeatSeries(let s): total + s.beats.count
            case .quantity(let q): total + q.points.count
            }
        })
    }
}

/// Counters of the sink side of the pipeline.
public struct SinkStatus: Sendable, Hashable, Codable {
    /// Batches of finished samples waiting in memory because the sink failed.
    public var queuedBatches: Int = 0
    /// Their size in beats (quantity points count as one).
    public var queuedBeats: Int = 0
    /// Samples dropped because the memory bound was exceeded (oldest first).
    public var droppedSamples: Int = 0
    /// Beats (and quantity points) in the dropped samples.
    public var droppedBeats: Int = 0
    /// Failed sink calls of any kind.
    public var failures: Int = 0
    /// Checkpoint writes that failed (retried at the next interval).
    public var checkpointFailures: Int = 0
    /// The last error the sink threw.
    public var lastError: String?
    /// When the sink began failing, while it fails (nil once a write succeeds again).
    public var failingSince: Date?

    public init() {}
}

/// A FIFO of finished batches bounded in beats. Nothing is lost while under the bound; beyond it the oldest
/// batches are dropped and counted.
struct SinkBuffer {
    let capacityBeats: Int
    private(set) var batches: [PendingBatch] = []
    private(set) var status = SinkStatus()

    init(capacityBeats: Int) {
        self.capacityBeats = capacityBeats
    }

    var isEmpty: Bool { batches.isEmpty }

    /// Queues a batch; returns the batches dropped to stay within the bound (oldest first).
    mutating func enqueue(_ batch: PendingBatch) -> [PendingBatch] {
        batches.append(batch)
        status.queuedBeats += batch.weight
        var dropped: [PendingBatch] = []
        while status.queuedBeats > capacityBeats, !batches.isEmpty {
            let oldest = batches.removeFirst()
            status.queuedBeats -= oldest.weight
            status.droppedSamples += oldest.samples.count
            status.droppedBeats += oldest.weight
            dropped.append(oldest)
        }
        status.queuedBatches = batches.count
        return dropped
    }

    /// Saves queued batches in order; stops at the first failure and returns its error.
    mutating func flush(into sink: any SeriesSink) -> (any Error)? {
        while let batch = batches.first {
            do {
                try sink.save(batch.samples, closingCheckpoints: batch.closingCheckpoints)
            } catch {
                recordFailure(error)
                return error
            }
            batches.removeFirst()
            status.queuedBeats -= batch.weight
            status.queuedBatches = batches.count
        }
        return nil
    }

    /// Takes the oldest batch out to write it elsewhere (`BackgroundSink`'s writer); `putBack` returns it on failure.
    mutating func takeFirst() -> PendingBatch? {
        guard !batches.isEmpty else { return nil }
        let batch = batches.removeFirst()
        status.queuedBeats -= batch.weight
        status.queuedBatches = batches.count
        return batch
    }

    /// Returns a batch `takeFirst` took, at the front (it is still the oldest).
    mutating func putBack(_ batch: PendingBatch) {
        batches.insert(batch, at: 0)
        status.queuedBeats += batch.weight
        status.queuedBatches = batches.count
    }

    /// Counts a failed write; the first of an outage sets `failingSince`.
    mutating func recordFailure(_ error: any Error, checkpoint: Bool = false, at now: Date = Date()) {
        status.failures += 1
        if checkpoint { status.checkpointFailures += 1 }
        status.lastError = String(describing: error)
        if status.failingSince == nil { status.failingSince = now }
    }

    /// A write succeeded after failures: the outage is over (`lastError` stays, for the record). Returns when it began.
    mutating func recordRecovery() -> Date? {
        defer { status.failingSince = nil }
        return status.failingSince
    }
}
