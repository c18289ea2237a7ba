import Foundation
import GRDB
import HealthModel

extension HeartDatabase {
    /// The hourly HRV sums (`hrv_hourly`) of the heartbeat series `forEachHeartbeatSeries(from:to:device:)` streams,
    /// for the UTC hours starting in [`hours.lower`, `hours.upper`) (both on the hour): `body` once per series and
    /// hour, with the hour's start. An hour's row holds the RR intervals whose second beat lies in it and their
    /// successive differences (`HeartbeatHourSums`), so the report's trend sums rows instead of every beat's interval.
    /// Returns false, having called nothing, when the store has no roll-up (an older store opened read-only).
    public func heartbeatHours(from: Date, to: Date, device: String? = nil, hours: (lower: Date, upper: Date),
                               _ body: (Date, HeartbeatHourSums) -> Void) throws(StoreError) -> Bool {
        try read { db in
            guard try db.tableExists(HeartbeatRollup.table) else { return false }
            guard let filter = try RangeFilter(type: Sample.heartbeatSeriesIdentifier, device: device, from: from, to: to,
                                               in: db)
            else { return true }
            let cell = HeartRateRollup.cellSeconds
            let lower = Int64((hours.lower.timeIntervalSinceReferenceDate / cell).rounded(.down))
            let upper = Int64((hours.upper.timeIntervalSinceReferenceDate / cell).rounded(.down))
            guard lower < upper else { return true }
            let rows = try Row.fetchCursor(db, sql: """
                SELECT h.cell, h.n, h.k, h.s, h.ss, h.hr, h.dn, h.dd, h.o50, h.o20
                FROM samples JOIN hrv_hourly h ON h.sample = samples.uuid
                WHERE \(filter.sql) AND h.cell >= ? AND h.cell < ?
                """, arguments: filter.arguments + [lower, upper])
            while let row = try rows.next() {
                let start = Date(timeIntervalSinceReferenceDate: Double(try row.decode(atIndex: 0) as Int64) * cell)
                body(start, try HeartbeatHourSums(row, from: 1))
            }
            return true
        }
    }
}
