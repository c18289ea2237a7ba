import Control
import Foundation
import HeartQueries

/// What the control socket may ask of the capture side (BlueZ, simulator or replay): its status and
/// changes to the set of devices it captures.
public protocol CaptureControl: Sendable {
    /// Source-specific status: adapters, per-device link state and fault counters.
    func status() async -> CaptureReport
    /// Starts capturing `address` (adds it to the allow-list).
    func allow(_ address: String) async throws(ControlError)
    /// Stops capturing `address` and removes it from the allow-list; stored data is kept.
    func forget(_ address: String) async throws(ControlError)
    /// Scans for `seconds` and lists the heart-rate sensors in range it does not capture.
    func nearby(seconds: Double) async throws(ControlError) -> [NearbyCall.Sensor]
}

/// Capture from the simulator or a replay file: nothing to allow or forget.
public struct FixedCaptureControl: CaptureControl {
    public let kind: CaptureSourceKind

    public init(kind: CaptureSourceKind) {
        self.kind = kind
    }

    public func status() async -> CaptureReport { CaptureReport(source: kind) }

    public func allow(_ address: String) async throws(ControlError) {
        throw ControlError(.unavailable, "the \(kind) source has a fixed device")
    }

    public func forget(_ address: String) async throws(ControlError) {
        throw ControlError(.unavailable, "the \(kind) source has a fixed device")
    }

    public func nearby(seconds: Double) async throws(ControlError) -> [NearbyCall.Sensor] {
        throw ControlError(.unavailable, "the \(kind) source does not scan")
    }
}
