import Foundation

/// The hourly roll-up of `heart_rate`: per sample and UTC hour ("cell"), the running totals of its points that lie
/// whole in the hour, kept by `heartd-sync` as it writes the rows (one statement: the rows' insert feeds the
/// roll-up's through `RETURNING`), so `heartctl --central stats` over a long range sums 24 rows a strap-day instead of
/// 86,400 points (`CentralRollupQuery`; docs/CENTRAL.md, "Per-interval statistics").
///
/// A point that crosses its hour's end (at 1 Hz about one an hour) is not summed: it is kept as `rest`, (start, end,
/// value) in threes, epoch seconds, and the reader adds it with the store's own rule, as `CentralBucketQuery` does for
/// the points that cross a bucket bound. The totals are those `BucketTotals` carries: count, minimum, maximum, Σ value,
/// Σ value·duration, Σ duration, and the value of the latest start (`m` at `mt`).
///
/// Samples are written once and deleted whole, so a roll-up row never changes: it is inserted with the sample's rows
/// and deleted with them (`CentralBatchWriter.removeSamples`). The table is partitioned by month like the expanded
/// tables (`heartd_month_partitions` makes its partitions too), so retention detaches its month beside theirs.
enum CentralRollup {
    /// The cell width, seconds: buckets that are whole hours on the UTC hour grid are answered from the roll-up.
    static let cellSeconds: TimeInterval = 3600

    /// Version 5 of the central schema: the roll-up table, its monthly partitions, and the rows already delivered
    /// rolled up.
    static let migration = [
        """
        CREATE TABLE heart_rate_hourly (cell timestamptz NOT NULL, device int, sample uuid NOT NULL, n int NOT NULL,
                                        lo float8, hi float8, s float8, sw float8, w float8, mt timestamptz, m float8,
                                        rest float8[]) PARTITION BY RANGE (cell)
        """,
        "CREATE INDEX heart_rate_hourly_cell ON heart_rate_hourly (cell)",
        CentralPartitions.function(parents: ["beats", "heart_rate", "heart_rate_hourly"], replace: true),
        "SELECT heartd_month_partitions(now(), now() + interval '1 month')",
        "SELECT heartd_month_partitions(min(time), max(time)) FROM heart_rate",
        "INSERT INTO heart_rate_hourly " + select(from: "heart_rate"),
    ]

    /// The roll-up rows of the `heart_rate` rows in `source` (a table or a CTE with its columns): the totals of the
    /// points whole in their hour, and the others as `rest`.
    static func select(from source: String) -> String {
        """
        SELECT cell, device, sample, n, lo, hi, s, sw, w, mt, m, (SELECT array_agg(u) FROM unnest(g.rest) u)
        FROM (SELECT cell, device, sample, count(v) FILTER (WHERE simple) AS n, min(v) FILTER (WHERE simple) AS lo,
                     max(v) FILTER (WHERE simple) AS hi, sum(v) FILTER (WHERE simple) AS s,
                     sum(v * d) FILTER (WHERE simple) AS sw, sum(d) FILTER (WHERE simple) AS w,
                     max(t) FILTER (WHERE simple) AS mt,
                     (array_agg(v ORDER BY t DESC, v DESC) FILTER (WHERE simple))[1] AS m,
                     array_agg(ARRAY[date_part('epoch', t), date_part('epoch', e), v]) FILTER (WHERE NOT simple) AS rest
              FROM (SELECT cell, device, sample, t, e, v, date_part('epoch', e - t) AS d,
                           e <= cell + interval '\(Int(cellSeconds)) seconds' AS simple
                    FROM (SELECT date_bin(interval '\(Int(cellSeconds)) seconds', x.time, timestamptz '1970-01-01 00:00:00+00') AS cell,
                                 x.device, x.sample, x.time AS t,
                                 greatest(coalesce(x.end_time, x.time), x.time) AS e, x.bpm::float8 AS v
                          FROM \(source) x) p) q
              GROUP BY cell, device, sample) g
        """
    }

    /// The columns `select` fills, in its order.
    static let columns = "cell, device, sample, n, lo, hi, s, sw, w, mt, m, rest"

    /// The cells [lower, upper) a statistics read over `from`–`to` can take from the roll-up: whole hours inside the
    /// range, when every bucket is a union of hours (one bucket, or an interval of whole hours on a grid that starts
    /// on the hour). Nil when none.
    static func cells(from: Date, to: Date, interval: TimeInterval, origin: Date, buckets: Int) -> (lower: Date, upper: Date)? {
        let aligned = buckets == 1 || (interval.truncatingRemainder(dividingBy: cellSeconds) == 0
            && origin.timeIntervalSince1970.truncatingRemainder(dividingBy: cellSeconds) == 0)
        guard aligned else { return nil }
        let lower = (from.timeIntervalSince1970 / cellSeconds).rounded(.up) * cellSeconds
        let upper = (to.timeIntervalSince1970 / cellSeconds).rounded(.down) * cellSeconds
        guard lower < upper else { return nil }
        return (Date(timeIntervalSince1970: lower), Date(timeIntervalSince1970: upper))
    }
}
