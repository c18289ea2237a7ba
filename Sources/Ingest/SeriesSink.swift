import Foundation
import HealthModel

/// Where the pipeline puts its output (the store, in the daemon). Calls are synchronous and come from the one
/// task that drives the pipeline. A throwing call (disk full) is retried later: finished samples wait in a
/// bounded memory queue, checkpoints are simply rewritten at the next interval.
public protocol SeriesSink: Sendable {
    /// Saves finished samples and, in the same transaction, deletes the open-series checkpoints they replace
    /// (keyed by the builder UUID, which is also the finished sample's UUID).
    func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws
    /// Upserts checkpoints of open series (keyed by UUID). Checkpoints not named here are left alone.
    func writeCheckpoints(_ open: [Sample]) throws
    /// Inserts or updates a device (keyed by `localIdentifier`, the Bluetooth address).
    func upsertDevice(_ device: DeviceInfo) throws
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
