import Foundation
import HealthModel
import HeartStore
import Ingest
import Logging
import LogFields

/// The ingest pipeline's sink backed by the SQLite store. Errors propagate so the pipeline can buffer and retry;
/// samples the store refuses by rule (stale sync version, reused UUID) are logged, not retried.
public struct StoreSink: SeriesSink {
    public let database: HeartDatabase
    /// Where checkpoints go: the open-series journal (the daemon), or nil for SQLite transactions (batch imports,
    /// whose checkpoints are minutes apart).
    public let checkpoints: CheckpointWriter?
    public let logger: Logger

    public init(database: HeartDatabase, checkpoints: CheckpointWriter? = nil, logger: Logger) {
        self.database = database
        self.checkpoints = checkpoints
        self.logger = logger
    }

    public func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws {
        let result = try database.save(samples, closingCheckpoints: closingCheckpoints)
        checkpoints?.closed(closingCheckpoints)
        for skipped in result.skipped {
            logger.warning("sample not saved", metadata: [
                LogField.series.key: "\(skipped.uuid)", "reason": "\(skipped.reason.rawValue)", "detail": "\(skipped.detail)",
            ])
        }
    }

    public func appendCheckpointsWithoutWaiting(_ open: [SeriesCheckpoint]) -> Bool {
        checkpoints?.appendWithoutWaiting(open) ?? false
    }

    public func writeCheckpoints(_ open: [SeriesCheckpoint]) throws {
        if let checkpoints {
            try checkpoints.write(open)
        } else {
            try database.writeCheckpoints(open)
        }
    }

    public func upsertDevice(_ device: DeviceInfo) throws {
        try database.upsertDevice(device)
    }
}
