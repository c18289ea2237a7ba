import Foundation
import HeartStore
import Ingest
import Logging

/// `heartd replay --db PATH FILE`: ingests a JSON-lines recording (docs/REPLAY.md) deterministically, with time
/// taken from the file. Bad lines are reported with their line numbers and skipped; the rest is ingested.
public struct Replay {
    public struct Report: Sendable, Codable {
        public var events: Int
        public var issues: [ReplayIssue]
        public var samplesSaved: Int
        public var devices: [DeviceStatus]
    }

    public let settings: IngestSettings
    public let logger: Logger

    public init(settings: IngestSettings, logger: Logger) {
        var s = settings
        // Checkpoints protect live capture from a crash; a replay can simply be run again.
        s.checkpointInterval = .infinity
        self.settings = s
        self.logger = logger
    }

    public func run(file: URL, databasePath: String) async throws -> Report {
        let source = try ReplaySource(contentsOf: file)
        let database = try HeartDatabase(path: databasePath)
        let before = try database.currentAnchor()
        let pipeline = IngestPipeline(settings: settings, sink: StoreSink(database: database, logger: logger), logger: logger)
        await pipeline.consume(source, tickWithEventTime: true)
        await pipeline.finishAll(reason: .shutdown)
        let changes = try database.changes(since: before, limit: Int.max)
        try database.checkpointWAL()
        return Report(events: source.parsedEvents.count, issues: source.issues, samplesSaved: changes.added.count,
                      devices: await pipeline.status())
    }
}
