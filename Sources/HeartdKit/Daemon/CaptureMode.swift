import Foundation
import HeartdConfig
import HeartQueries
import Ingest

/// Where the daemon's beats come from.
public enum CaptureMode: Sendable, Equatable {
    /// Live sensors through bluetoothd (the default).
    case bluez
    /// The built-in simulated sensor: a real RR recording played back (`speed` 1 = real time).
    case simulate(speed: Double)

    /// The mode as `status` reports it.
    public var kind: DaemonMode {
        switch self {
        case .bluez: .bluez
        case .simulate: .simulate
        }
    }

    public var name: String { kind.rawValue }
}

extension HeartdConfiguration {
    /// The ingest pipeline's settings from `[series]` and `[store]`.
    public var ingestSettings: IngestSettings {
        IngestSettings(maxBeats: series.maxBeats, maxValues: series.maxValues, maxDuration: series.maxDurationSeconds,
                       idleTimeout: series.idleTimeoutSeconds, gapThreshold: series.gapThresholdSeconds,
                       clockTolerance: series.clockToleranceSeconds, rrMinMs: Double(series.rrMinMs),
                       rrMaxMs: Double(series.rrMaxMs), checkpointInterval: store.checkpointSeconds,
                       memoryBufferBeats: store.memoryBufferBeats)
    }
}
