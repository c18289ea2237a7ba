import Foundation
import GRDB
import HealthModel

/// The store's hourly roll-up of heart rate (`heart_rate_hourly`, migration `v5-heart-rate-hourly`): per stored
/// heart-rate sample and UTC hour ("cell", `floor(start / 3600)` in reference-date seconds — the reference date is a
/// UTC midnight, so cells are UTC hours), the running totals of its points that lie whole in the hour, so `stats`
/// over a long range sums ~24 rows a strap-day instead of 86,400 points (`HeartDatabase.heartRateRollup`).
///
/// A point that crosses its hour's end (about one an hour at 1 Hz) is not summed: it is kept in `rest` as
/// (start, end, value) doubles and the reader adds it with `QuantityStatisticsBuilder`'s own rule, as heartd-sync's
/// central roll-up does (`CentralRollup`). The totals are those `BucketTotals` carries: count, minimum, maximum,
/// Σ value, Σ value·duration, Σ duration, and the value of the latest start (`m` at `mt`). They are computed from the
/// points as the store decodes them, so the roll-up and the streamed path see the same numbers.
///
/// Samples are written once and deleted whole: the rows are inserted by `HeartDatabase.save` in the save's
/// transaction and deleted by `HeartDatabase.tombstone` (the one place samples are deleted: `delete`, a sync
/// identifier's replacement).
enum HeartRateRollup {
    static let table = "heart_rate_hourly"
    static let cellSeconds = 3600.0

    /// The migration: the table, and every stored heart-rate sample rolled up.
    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE heart_rate_hourly (
                cell INTEGER NOT NULL, sample BLOB NOT NULL, deviceId INTEGER, n INTEGER NOT NULL,
                lo REAL, hi REAL, s REAL, sw REAL, w REAL, mt REAL, m REAL, rest BLOB,
                PRIMARY KEY (cell, sample)) WITHOUT ROWID
            """)
        try db.execute(sql: "CREATE INDEX heart_rate_hourly_sample ON heart_rate_hourly (sample)")
        let rows = try Row.fetchCursor(
            db, sql: "SELECT uuid, deviceId, startDate, contents FROM samples WHERE type = ?",
            arguments: [QuantityType.heartRate.identifier])
        while let row = try rows.next() {
            let uuid: Data = try row.decode(atIndex: 0)
            let start = StoreCoding.date(try row.decode(atIndex: 2) as Double)
            let contents: [UInt8] = try row.withUnsafeData(atIndex: 3) { $0.map { [UInt8]($0) } ?? [] }
            try insert(sample: uuid, deviceId: try row.decode(atIndex: 1), seriesStart: start, contents: contents, in: db)
        }
    }

    /// One hour of one sample.
    struct Cell {
        var n = 0
        var lo = Double.infinity, hi = -Double.infinity
        var s = 0.0, sw = 0.0, w = 0.0
        var mt = -Double.infinity, m = 0.0
        var rest: [Double] = []
    }

    /// The cells of `points`, keyed by hour index.
    static func cells(_ points: [QuantityPoint]) -> [Int64: Cell] {
        var cells: [Int64: Cell] = [:]
        for p in points {
            let ps = p.start.timeIntervalSinceReferenceDate
            let pe = Swift.max(p.end.timeIntervalSinceReferenceDate, ps)
            guard ps.isFinite, pe.isFinite, abs(ps) < 1e15 else { continue }
            let cell = Int64((ps / cellSeconds).rounded(.down))
            var c = cells[cell] ?? Cell()
            if pe <= Double(cell + 1) * cellSeconds {
                // `>=` and this order: the accumulator's rule (of equal starts the later point wins).
                c.n += 1
                c.lo = Swift.min(c.lo, p.value)
                c.hi = Swift.max(c.hi, p.value)
                c.s += p.value
                c.sw += p.value * (pe - ps)
                c.w += pe - ps
                if ps >= c.mt {
                    c.mt = ps
                    c.m = p.value
                }
            } else {
                c.rest += [ps, pe, p.value]
            }
            cells[cell] = c
        }
        return cells
    }

    /// Rolls up one heart-rate sample's stored contents.
    static func insert(sample uuid: Data, deviceId: Int64?, seriesStart: Date, contents: [UInt8], in db: Database) throws {
        let points: [QuantityPoint]
        do {
            points = try QuantitySeriesCoding.decode(contents, seriesStart: seriesStart)
        } catch {
            throw StoreError(.corruptBlob, "heart-rate series at \(seriesStart): \(error)")
        }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO heart_rate_hourly (cell, sample, deviceId, n, lo, hi, s, sw, w, mt, m, rest)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (cell, c) in cells(points) {
            let whole = c.n > 0
            try statement.execute(arguments: [
                cell, uuid, deviceId, c.n, whole ? c.lo : nil, whole ? c.hi : nil, c.s, c.sw, c.w,
                whole ? c.mt : nil, whole ? c.m : nil, c.rest.isEmpty ? nil : restBlob(c.rest),
            ])
        }
    }

    /// Removes a deleted sample's cells.
    static func delete(sample uuid: Data, in db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM heart_rate_hourly WHERE sample = ?").execute(arguments: [uuid])
    }

    static func restBlob(_ values: [Double]) -> Data {
        var data = Data(capacity: values.count * 8)
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    static func restValues(_ data: Data) -> [Double] {
        let bytes = [UInt8](data)
        var values: [Double] = []
        values.reserveCapacity(bytes.count / 8)
        var i = 0
        while i + 8 <= bytes.count {
            var bits: UInt64 = 0
            for j in 0..<8 { bits |= UInt64(bytes[i + j]) << (8 * UInt64(j)) }
            values.append(Double(bitPattern: bits))
            i += 8
        }
        return values
    }
}
