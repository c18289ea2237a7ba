import Foundation
import GRDB
import HealthModel

/// The running sums of HRV's time-domain measures over some RR intervals: what `hrv_hourly` keeps per heartbeat series
/// and UTC hour. RR intervals (ms) are those of `HRVMetrics.segments(of:)` — within gap-free runs of one series —
/// and an interval belongs to the hour of its second beat, a successive difference to the hour of its later
/// interval's second beat (so none spans a gap or a series). Σ RR and Σ RR² are kept shifted by the first interval
/// (`shift`): RR stays within a few hundred ms of it, so the variance behind SDNN loses nothing to cancellation.
public struct HeartbeatHourSums: Sendable, Hashable {
    /// NN (RR) intervals.
    public var count = 0
    public var shift = 0.0
    /// Σ (RR − shift), Σ (RR − shift)², Σ 60,000 / RR (the mean heart rate's numerator).
    public var shiftedSum = 0.0, shiftedSquares = 0.0, rateSum = 0.0
    /// Successive differences, Σ difference², and how many exceed 50 ms and 20 ms.
    public var differences = 0
    public var squaredDifferences = 0.0
    public var over50 = 0, over20 = 0

    public init() {}

    /// The sums as `hrv_hourly` holds them, in its column order (n, k, s, ss, hr, dn, dd, o50, o20), from `row`'s
    /// column `first` on.
    init(_ row: Row, from first: Int) throws {
        count = try row.decode(atIndex: first)
        shift = try row.decode(atIndex: first + 1)
        shiftedSum = try row.decode(atIndex: first + 2)
        shiftedSquares = try row.decode(atIndex: first + 3)
        rateSum = try row.decode(atIndex: first + 4)
        differences = try row.decode(atIndex: first + 5)
        squaredDifferences = try row.decode(atIndex: first + 6)
        over50 = try row.decode(atIndex: first + 7)
        over20 = try row.decode(atIndex: first + 8)
    }

    /// One RR interval, and its difference from the previous one of its run (nil for a run's first).
    mutating func add(rr: Double, difference: Double?) {
        if count == 0 { shift = rr }
        count += 1
        shiftedSum += rr - shift
        shiftedSquares += (rr - shift) * (rr - shift)
        rateSum += 60_000 / rr
        if let d = difference {
            differences += 1
            squaredDifferences += d * d
            if abs(d) > 50 { over50 += 1 }
            if abs(d) > 20 { over20 += 1 }
        }
    }
}

/// `hrv_hourly` (migration `v6-heartbeat-hourly`): per heartbeat series and UTC hour, `HeartbeatHourSums`, so HRV over
/// months sums rows instead of decoding ~100,000 beats a strap-day (`HeartDatabase.heartbeatRollup`). Inserted by
/// `HeartDatabase.save` and deleted by `HeartDatabase.tombstone`, in their transactions, like `HeartRateRollup`.
enum HeartbeatRollup {
    static let table = "hrv_hourly"

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE hrv_hourly (
                cell INTEGER NOT NULL, sample BLOB NOT NULL, n INTEGER NOT NULL, k REAL NOT NULL, s REAL NOT NULL,
                ss REAL NOT NULL, hr REAL NOT NULL, dn INTEGER NOT NULL, dd REAL NOT NULL, o50 INTEGER NOT NULL,
                o20 INTEGER NOT NULL, PRIMARY KEY (sample, cell)) WITHOUT ROWID
            """)
        let rows = try Row.fetchCursor(db, sql: "SELECT uuid, startDate, contents FROM samples WHERE type = ?",
                                       arguments: [Sample.heartbeatSeriesIdentifier])
        while let row = try rows.next() {
            let contents: [UInt8] = try row.withUnsafeData(atIndex: 2) { $0.map { [UInt8]($0) } ?? [] }
            try insert(sample: try row.decode(atIndex: 0), seriesStart: StoreCoding.date(try row.decode(atIndex: 1)),
                       contents: contents, in: db)
        }
    }

    /// The sums of `beats` (offsets from `seriesStart`) per hour index.
    static func hours(_ beats: [Beat], seriesStart: Date) -> [Int64: HeartbeatHourSums] {
        var hours: [Int64: HeartbeatHourSums] = [:]
        let start = seriesStart.timeIntervalSinceReferenceDate
        for run in HRVMetrics.beatSegments(of: beats) {
            var previous: Double?
            for i in run.dropFirst() {
                let rr = (beats[i].offset - beats[i - 1].offset) * 1000
                let t = start + beats[i].offset
                guard t.isFinite, abs(t) < 1e15 else { continue }
                let cell = Int64((t / HeartRateRollup.cellSeconds).rounded(.down))
                hours[cell, default: HeartbeatHourSums()].add(rr: rr, difference: previous.map { rr - $0 })
                previous = rr
            }
        }
        return hours
    }

    static func insert(sample uuid: Data, seriesStart: Date, contents: [UInt8], in db: Database) throws {
        let beats: [Beat]
        do {
            beats = try HeartbeatSeriesCoding.decode(contents)
        } catch {
            throw StoreError(.corruptBlob, "heartbeat series at \(seriesStart): \(error)")
        }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO hrv_hourly (cell, sample, n, k, s, ss, hr, dn, dd, o50, o20) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (cell, h) in hours(beats, seriesStart: seriesStart) {
            try statement.execute(arguments: [cell, uuid, h.count, h.shift, h.shiftedSum, h.shiftedSquares, h.rateSum,
                                              h.differences, h.squaredDifferences, h.over50, h.over20])
        }
    }

    static func delete(sample uuid: Data, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM hrv_hourly WHERE sample = ?").execute(arguments: [uuid])
    }
}
