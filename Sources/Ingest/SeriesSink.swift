import Foundation
import HealthModel

/// Where the pipeline puts its output (the store, in the daemon). Calls are synchronous and come from the one
/// task that drives the pipeline. A throwing call (disk full) is retried later: finished samples wait in a
/// bounded memory queue, checkpoints are simply rewritten at the next interval.
public protocol SeriesSink: Sendable {
    /// Saves finished samples and, in the same transaction, deletes the open-series checkpoints they replace
    /// (keyed by the builder UUID, which is also the finished sample's UUID).
    func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws
    /// Upserts checkpoints of open series (keyed by UUID): a series whole, or what it appended since its previous
    /// checkpoint. Checkpoints not named here are left alone. A throw (the store failed, or holds another item
    /// count than a change follows) makes the pipeline send every series whole at the next interval.
    func writeCheckpoints(_ open: [SeriesCheckpoint]) throws
    /// Inserts or updates a device (keyed by `localIdentifier`, the Bluetooth address).
    func upsertDevice(_ device: DeviceInfo) throws
    /// Writes the checkpoints now, on the caller's thread, if that is one short append to a file — no transaction,
    /// no read, no compaction — and returns true; false (nothing written) when it would take more or failed, and
    /// the caller queues them for `writeCheckpoints`. `BackgroundSink` asks it when its writer is idle, so that a
    /// checkpoint does not wake the writer thread.
    func appendCheckpointsWithoutWaiting(_ open: [SeriesCheckpoint]) -> Bool
}

extension SeriesSink {
    public func appendCheckpointsWithoutWaiting(_ open: [SeriesCheckpoint]) -> Bool { false }
}

/// An error a sink reports. `code` is stable for logs.
public struct SinkError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case unavailable
        case full
    }
    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
