import Foundation
import GRDB
import HealthModel

extension HeartDatabase {
    /// The whole UTC hours inside [from, to): the cells `heartRateRollup` answers from the roll-up. Nil when none.
    public static func rollupHours(from: Date, to: Date) -> (lower: Date, upper: Date)? {
        let cell = HeartRateRollup.cellSeconds
        let lower = (from.timeIntervalSinceReferenceDate / cell).rounded(.up) * cell
        let upper = (to.timeIntervalSinceReferenceDate / cell).rounded(.down) * cell
        guard lower.isFinite, upper.isFinite, lower < upper else { return nil }
        return (Date(timeIntervalSinceReferenceDate: lower), Date(timeIntervalSinceReferenceDate: upper))
    }

    /// The heart-rate points `forEachQuantityPoint(type: .heartRate, from:to:device:)` streams, handed over as the
    /// store's hourly roll-up holds them (`HeartRateRollup`), in one read: `totals` once per stored sample and whole
    /// hour of `rollupHours(from:to:)` with the totals of its points whole in that hour (and the hour's start), and
    /// `point` with each other point — those of the hours crossing an hour's end, and those starting outside the
    /// whole hours (the range's edges, streamed). Summing `totals` into the bucket holding the hour and adding
    /// `point` by `QuantityStatisticsBuilder.add` gives the streamed path's statistics, provided every bucket is a
    /// union of whole hours (one bucket, or an interval of whole hours on an hour-aligned anchor).
    /// Returns false, having called nothing, when the store has no roll-up (an older store opened read-only).
    public func heartRateRollup(from: Date, to: Date, device: String? = nil,
                                totals: (Date, BucketTotals) -> Void, point: (QuantityPoint) -> Void) throws(StoreError) -> Bool {
        try read { db in
            guard try db.tableExists(HeartRateRollup.table) else { return false }
            guard let (lower, upper) = Self.rollupHours(from: from, to: to) else {
                try Self.forEachQuantityPoint(type: .heartRate, from: from, to: to, device: device, metadata: [:], in: db, point)
                return true
            }
            // The edges: points starting before the first whole hour, and from the end of the last one.
            try Self.forEachQuantityPoint(type: .heartRate, from: from, to: lower, device: device, metadata: [:], in: db, point)
            try Self.forEachQuantityPoint(type: .heartRate, from: upper, to: to, device: device, metadata: [:], in: db) { p in
                if p.start >= upper { point(p) }
            }
            var sql = "SELECT cell, n, lo, hi, s, sw, w, mt, m, rest FROM heart_rate_hourly WHERE cell >= ? AND cell < ?"
            let cell = HeartRateRollup.cellSeconds
            var arguments: StatementArguments = [Int64(lower.timeIntervalSinceReferenceDate / cell),
                                                 Int64(upper.timeIntervalSinceReferenceDate / cell)]
            if let device {
                guard let id = try Self.deviceId(address: device, in: db) else { return true }
                sql += " AND deviceId = ?"
                arguments += [id]
            }
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() {
                let start = Date(timeIntervalSinceReferenceDate: Double(try row.decode(atIndex: 0) as Int64) * cell)
                let n: Int = try row.decode(atIndex: 1)
                if n > 0, let lo: Double = try row.decode(atIndex: 2), let hi: Double = try row.decode(atIndex: 3),
                   let mt: Double = try row.decode(atIndex: 7), let m: Double = try row.decode(atIndex: 8) {
                    let s: Double = try row.decode(atIndex: 4), w: Double = try row.decode(atIndex: 6)
                    totals(start, BucketTotals(count: n, minimum: lo, maximum: hi, plainSum: s,
                                               weightedSum: try row.decode(atIndex: 5), weights: w, sum: s, duration: w,
                                               mostRecent: m, mostRecentStart: Date(timeIntervalSinceReferenceDate: mt)))
                }
                if let rest: Data = try row.decode(atIndex: 9) {
                    let values = HeartRateRollup.restValues(rest)
                    for i in Swift.stride(from: 0, to: values.count - 2, by: 3) {
                        point(QuantityPoint(value: values[i + 2], start: Date(timeIntervalSinceReferenceDate: values[i]),
                                            end: Date(timeIntervalSinceReferenceDate: values[i + 1])))
                    }
                }
            }
            return true
        }
    }
}

extension HeartDatabase {
    /// HRV's running sums over the heartbeat series `forEachHeartbeatSeries(from:to:device:metadata:)` streams (whole
    /// series that overlap the range), read from `hrv_hourly` — one `body` call per series and hour — when those
    /// series hold more than `beatsAbove` beats; one read. Returns false, having called nothing, when they hold
    /// fewer (the caller streams the beats, which a full analysis needs) or the store has no roll-up.
    public func heartbeatRollup(from: Date, to: Date, device: String? = nil, metadata: MetadataPredicate = [:],
                                beatsAbove: Int, _ body: (HeartbeatHourSums) -> Void) throws(StoreError) -> Bool {
        try read { db in
            guard try db.tableExists(HeartbeatRollup.table),
                  let filter = try RangeFilter(type: Sample.heartbeatSeriesIdentifier, device: device, from: from, to: to,
                                               metadata: metadata, in: db)
            else { return false }
            let beats = try Int.fetchOne(db, sql: "SELECT SUM(count) FROM samples WHERE \(filter.sql)",
                                         arguments: filter.arguments) ?? 0
            guard beats > beatsAbove else { return false }
            let rows = try Row.fetchCursor(db, sql: """
                SELECT h.n, h.k, h.s, h.ss, h.hr, h.dn, h.dd, h.o50, h.o20
                FROM samples JOIN hrv_hourly h ON h.sample = samples.uuid WHERE \(filter.sql)
                """, arguments: filter.arguments)
            while let row = try rows.next() {
                body(try HeartbeatHourSums(row, from: 0))
            }
            return true
        }
    }
}
