import Foundation
import HealthModel
import Logging
import PostgresNIO

/// Range reads that hold a page of samples at a time, like the store's cursors (`HeartDatabase+Streams`): a
/// server-side cursor (`DECLARE … CURSOR`, `FETCH` `pageSize` rows) in one read-only transaction (one snapshot), each
/// row's compact contents decoded with the store's codings, handed to the caller and dropped — so a year of a fleet
/// never sits in heartctl's memory.
extension CentralReader {
    /// Rows per `FETCH`: a page of five-minute series is a few hundred kB.
    static let pageSize = 200

    /// Calls `body` with each sample `f` selects, in start order (`f.newestFirst` reversed).
    public func forEachSample(_ f: Filter, _ body: (Sample) throws -> Void) async throws(SyncError) {
        var binds = PostgresBindings()
        var sql = Self.sampleColumns + " WHERE \(f.condition(&binds)) ORDER BY s.start_time \(f.newestFirst ? "DESC" : "ASC"), s.uuid"
        if let limit = f.limit { sql += " LIMIT \(max(0, limit))" }
        try await withCursor(sql, binds, context: "streaming samples") { row throws in try body(try Self.sample(row.decode(SampleRow.self))) }
    }

    /// Runs `sql` as a server-side cursor and calls `body` with each row, `pageSize` rows fetched at a time.
    func withCursor(_ sql: String, _ binds: PostgresBindings, context: String,
                    _ body: (PostgresRow) throws -> Void) async throws(SyncError) {
        do {
            try await connection.query("BEGIN TRANSACTION READ ONLY", logger: logger)
            do {
                try await connection.query(PostgresQuery(unsafeSQL: "DECLARE heartd_range NO SCROLL CURSOR FOR " + sql, binds: binds),
                                           logger: logger)
                while true {
                    var fetched = 0
                    for try await row in try await connection.query(
                        PostgresQuery(unsafeSQL: "FETCH \(Self.pageSize) FROM heartd_range"), logger: logger) {
                        fetched += 1
                        try body(row)
                    }
                    if fetched < Self.pageSize { break }
                }
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw CentralConnector.map(error, context: context)
        }
    }

    /// The span of a session: its start and end (now while it runs) from `sessions`, or — one the central database
    /// has no row for — the span of the samples tagged with it; nil when neither exists.
    public func sessionSpan(_ uuid: UUID, now: Date = Date()) async throws(SyncError) -> (from: Date, to: Date)? {
        do {
            for try await (start, end) in try await connection.query(
                "SELECT start_time, end_time FROM sessions WHERE uuid = \(uuid)", logger: logger).decode((Date, Date?).self) {
                return (start, end ?? now)
            }
            for try await (start, end) in try await connection.query("""
                SELECT min(start_time), max(end_time) FROM samples WHERE metadata->>\(MetadataKey.session) = \(uuid.uuidString)
                """, logger: logger).decode((Date?, Date?).self) {
                if let start, let end { return (start, end) }
            }
            return nil
        } catch {
            throw CentralConnector.map(error, context: "reading session \(uuid)")
        }
    }
}
