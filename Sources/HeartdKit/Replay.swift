import Foundation
import HeartStore
import Ingest
import Logging

/// `heartd replay --db PATH FILE`: ingests a JSON-lines recording (docs/REPLAY.md) deterministically, with time
/// taken from the file, streaming it in bounded memory (`-` reads standard input). Bad lines are reported with
/// their line numbers and skipped; the rest is ingested.
public struct Replay {
    public struct Report: Sendable, Codable {
        public var events: Int
        /// The first `ReplayStream.keptIssues` bad lines.
        public var issues: [ReplayIssue]
        /// Every bad line, including those beyond `issues`.
        public var issueCount: Int
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

    /// Replays `path` (`-`: standard input). Throws `ReplayError` when the input cannot be opened or read,
    /// `StoreError` when the store cannot be opened.
    public func run(path: String, databasePath: String) async throws -> Report {
        try await run(stream: try ReplayStream(path: path), databasePath: databasePath)
    }

    public func run(file: URL, databasePath: String) async throws -> Report {
        try await run(path: file.path, databasePath: databasePath)
    }

    public func run(stream: ReplayStream, databasePath: String) async throws -> Report {
        let database = try HeartDatabase(path: databasePath)
        let before = try database.currentAnchor()
        let pipeline = IngestPipeline(settings: settings, sink: StoreSink(database: database, logger: logger), logger: logger)
        // Parsed a few batches ahead on a thread of its own; each batch handled under one lock, as
        // `consume(_:tickWithEventTime: true)` does event by event.
        let reader = ReplayReadAhead(stream)
        defer { reader.cancel() }
        do {
            while case let batch = try reader.next(), !batch.isEmpty {
                pipeline.handleNow(batch, tickWithEventTime: true)
            }
        } catch {
            // Reading failed midway: what was read is stored all the same, then the error is reported.
            await pipeline.finishAll(reason: .shutdown)
            try database.checkpointWAL()
            throw error
        }
        await pipeline.finishAll(reason: .shutdown)
        let saved = try database.addedSampleCount(since: before)
        try database.checkpointWAL()
        return Report(events: stream.eventCount, issues: stream.issues, issueCount: stream.issueCount,
                      samplesSaved: saved, devices: await pipeline.status())
    }
}
