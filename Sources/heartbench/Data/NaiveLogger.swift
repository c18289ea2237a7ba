import Foundation
import GRDB

/// The baseline: how a naive logger would keep the same data in SQLite — one row per beat and one row per
/// heart-rate value, with the device address repeated on every row and an index on time.
struct NaiveLogger {
    struct BeatRow: Sendable {
        var device: String
        /// Unix seconds.
        var t: Double
        var gap: Bool
    }

    struct HeartRateRow: Sendable {
        var device: String
        var start: Double
        var end: Double
        var bpm: Double
    }

    static let schema = """
        CREATE TABLE beats(id INTEGER PRIMARY KEY, device TEXT, t REAL, gap INTEGER);
        CREATE INDEX beats_t ON beats(t);
        CREATE TABLE hr(id INTEGER PRIMARY KEY, device TEXT, start REAL, "end" REAL, bpm REAL);
        CREATE INDEX hr_start ON hr(start);
        """

    let path: String
    let queue: DatabaseQueue

    /// Creates the file with SQLite's defaults (4 KB pages, rollback journal).
    init(path: String) throws {
        self.path = path
        queue = try DatabaseQueue(path: path)
        try queue.write { db in try db.execute(sql: Self.schema) }
    }

    /// Inserts rows in one transaction with prepared statements (the naive logger's best case).
    func insert(beats: [BeatRow] = [], heartRates: [HeartRateRow] = []) throws {
        try queue.write { db in
            let beat = try db.makeStatement(sql: "INSERT INTO beats(device, t, gap) VALUES (?, ?, ?)")
            for row in beats { try beat.execute(arguments: [row.device, row.t, row.gap ? 1 : 0]) }
            let hr = try db.makeStatement(sql: "INSERT INTO hr(device, start, \"end\", bpm) VALUES (?, ?, ?, ?)")
            for row in heartRates { try hr.execute(arguments: [row.device, row.start, row.end, row.bpm]) }
        }
    }

    /// `SELECT t, gap FROM beats WHERE t BETWEEN …`: the number of beats and a checksum of their times.
    func enumerateBeats(from: Double, to: Double) throws -> (count: Int, checksum: Double) {
        try queue.read { db in
            let cursor = try Row.fetchCursor(db, sql: "SELECT t, gap FROM beats WHERE t BETWEEN ? AND ?", arguments: [from, to])
            var count = 0
            var sum = 0.0
            while let row = try cursor.next() {
                let t: Double = try row.decode(atIndex: 0)
                let gap: Int = try row.decode(atIndex: 1)
                sum += t + Double(gap)
                count += 1
            }
            return (count, sum)
        }
    }

    /// Hourly statistics in SQL, bucketed by each value's start hour (UTC). `average` is temporally weighted like
    /// heartd's (value × duration; the plain mean when every duration is 0); `plainAverage` is `AVG(bpm)`.
    func hourlyStatistics(from: Double, to: Double) throws -> [HourlyBucket] {
        try queue.read { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT strftime('%Y-%m-%d %H', start, 'unixepoch') AS hour, MIN(start),
                       CASE WHEN SUM("end" - start) > 0 THEN SUM(bpm * ("end" - start)) / SUM("end" - start)
                            ELSE AVG(bpm) END,
                       MIN(bpm), MAX(bpm), COUNT(*)
                FROM hr WHERE start >= ? AND start < ? GROUP BY hour ORDER BY hour
                """, arguments: [from, to])
            return try rows.map { row in
                let firstStart: Double = try row.decode(atIndex: 1)
                return HourlyBucket(
                    hour: Int((firstStart / 3600).rounded(.down)), count: try row.decode(atIndex: 5),
                    average: try row.decode(atIndex: 2), minimum: try row.decode(atIndex: 3),
                    maximum: try row.decode(atIndex: 4))
            }
        }
    }

    /// Bytes on disk.
    func fileSize() -> Int64 {
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber
        return size?.int64Value ?? 0
    }
}
