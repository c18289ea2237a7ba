import Foundation
import GRDB
import HealthModel
import HeartStore

/// Bytes per beat and per heart-rate value on disk, heartd vs the naive tables, each kind in its own file
/// (after a WAL checkpoint) with the size of an empty file of the same schema subtracted.
struct SizeBenchmark {
    struct Result {
        var heartdBytesPerBeat: Double
        var heartdBytesPerPoint: Double
        var naiveBytesPerBeat: Double
        var naiveBytesPerPoint: Double
        var beats: Int
        var points: Int
    }

    let workspace: Workspace

    func run(_ data: StoredData) throws -> Result {
        let heartdEmpty = try heartdFile("heartd-empty", samples: [])
        let heartdBeats = try heartdFile("heartd-beats", samples: data.heartbeatSeries.map(Sample.heartbeatSeries))
        let heartdPoints = try heartdFile("heartd-hr", samples: data.heartRateSamples.map(Sample.quantity))
        let naiveEmpty = try NaiveLogger(path: workspace.path("naive-empty.sqlite")).fileSize()
        let naiveBeats = try NaiveLogger(path: workspace.path("naive-beats.sqlite"))
        try naiveBeats.insert(beats: data.naiveBeats)
        let naivePoints = try NaiveLogger(path: workspace.path("naive-hr.sqlite"))
        try naivePoints.insert(heartRates: data.naiveHeartRates)
        let beats = Double(data.beatCount), points = Double(data.heartRatePointCount)
        return Result(
            heartdBytesPerBeat: Double(heartdBeats - heartdEmpty) / beats,
            heartdBytesPerPoint: Double(heartdPoints - heartdEmpty) / points,
            naiveBytesPerBeat: Double(naiveBeats.fileSize() - naiveEmpty) / beats,
            naiveBytesPerPoint: Double(naivePoints.fileSize() - naiveEmpty) / points,
            beats: data.beatCount, points: data.heartRatePointCount)
    }

    /// A heartd store holding `samples` only; its size after a WAL checkpoint.
    private func heartdFile(_ name: String, samples: [Sample]) throws -> Int64 {
        let database = try HeartDatabase(path: workspace.path(name + ".sqlite"))
        defer { try? database.close() }
        if !samples.isEmpty { try database.save(samples) }
        try database.checkpointWAL()
        return database.fileSize()
    }

    /// Page-level breakdown of a store (SQLite's `dbstat`): bytes per table and index, largest first.
    /// Nil when this SQLite lacks the dbstat virtual table.
    static func pageBreakdown(of database: HeartDatabase) -> [(name: String, bytes: Int64)]? {
        try? database.read { db in
            try Row.fetchAll(db, sql: "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")
                .map { row in (try row.decode(atIndex: 0), try row.decode(atIndex: 1)) }
        }
    }
}
