import Foundation
import HealthModel
import PostgresNIO

/// The statements behind `heartctl --central stats` for the whole hours of its range (`CentralRollup.cells`): the
/// hourly roll-up's rows in scope summed per bucket (`totals`: one row per bucket, the most recent value the one of
/// the latest cell), and the points that crossed their hour (`rest`: one array a cell that has any), which the reader
/// adds with the store's rule. The totals group as a hash (`enable_sort` is off for the read): the most recent value is
/// the second element of the greatest `[epoch(mt), m]` (the latest cell, the larger value on a tie), since an ordered
/// `array_agg` sorted every bucket's rows — half the statement's time over 90 days of three gateways (141 → 65 ms). `CentralBucketQuery` answers for the rows before and after those hours, so every
/// point is counted once. A strap's day in daily buckets is one row per sample and hour it spans (a few hundred) rather than 86,400 points.
struct CentralRollupQuery {
    var totals: String
    var rest: String
    var binds: PostgresBindings

    init(_ f: CentralReader.Filter, builder: QuantityStatisticsBuilder, cells: (lower: Date, upper: Date)) {
        var binds = PostgresBindings()
        func bind(_ value: some PostgresNonThrowingEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let scope = CentralBucketQuery.rowScope(f, &binds, gatewayColumn: true)
        let lower = bind(cells.lower), upper = bind(cells.upper)
        let start = bind(CentralBucketQuery.origin(builder))
        let width = "make_interval(secs => \(bind(CentralBucketQuery.stride(builder)))::float8)"
        let rows = "FROM heart_rate_hourly r WHERE \(scope) AND r.cell >= \(lower) AND r.cell < \(upper)"
        totals = """
            SELECT date_bin(\(width), r.cell, \(start)) AS b, sum(r.n)::int8, min(r.lo), max(r.hi), sum(r.s), sum(r.sw),
                   sum(r.w), max(r.mt), (max(ARRAY[date_part('epoch', r.mt), r.m]))[2]
            \(rows) AND r.n > 0
            GROUP BY 1
            """
        rest = "SELECT r.rest \(rows) AND r.rest IS NOT NULL"
        self.binds = binds
    }
}
