import Foundation

/// The hourly HRV roll-up of `beats`: per heartbeat series and UTC hour ("cell"), the running sums of the store's
/// `hrv_hourly` (`HeartbeatHourSums`: NN count, Σ (RR − k), Σ (RR − k)², Σ 60,000 / RR, successive differences, Σ
/// difference², counts over 50 and 20 ms; k the hour's first RR), so `heartctl --central hrv` over months sums a
/// few rows a strap-hour instead of decoding every beat (`CentralReader.heartbeatRollup`; docs/CENTRAL.md).
///
/// The rules are the store's (`HeartbeatRollup.hours`): RR intervals within gap-free runs of one series (a run
/// ends at a beat `preceded_by_gap` or one whose RR is not positive), an interval belongs to the hour of its second
/// beat, a difference to the hour of its later interval's second beat, and none spans a gap or two series. RR is the
/// expanded row's `rr_ms` (float4: exact for the store's 1/1024-s ticks).
///
/// `heartd-sync` fills it in the statement that writes a batch's beats (`CentralBatchWriter.expandedInsert`: the
/// rows in series order, `WITH ORDINALITY`), only for samples inserted by that batch, so a re-delivered batch adds
/// nothing (exactly-once as the rows). Rows never change: they go with their sample (`removeSamples`). Partitioned
/// by month like the tables it sums, so a month detaches with them.
enum CentralHRVRollup {
    /// Version 6 of the central schema: the table, its monthly partitions, the expanded tables' BRIN indexes
    /// summarized as they fill, and the beats already delivered rolled up (in `(sample, time)` order: a series' beats
    /// as recorded, unless it holds beats out of order).
    static let migration = [
        """
        CREATE TABLE hrv_hourly (cell timestamptz NOT NULL, device int, sample uuid NOT NULL, n int NOT NULL,
                                 k float8 NOT NULL, s float8 NOT NULL, ss float8 NOT NULL, hr float8 NOT NULL,
                                 dn int NOT NULL, dd float8 NOT NULL, o50 int NOT NULL, o20 int NOT NULL)
            PARTITION BY RANGE (cell)
        """,
        "CREATE INDEX hrv_hourly_cell ON hrv_hourly (cell)",
        CentralPartitions.function(parents: ["beats", "heart_rate", "heart_rate_hourly", "hrv_hourly"], replace: true),
        "SELECT heartd_month_partitions(now(), now() + interval '1 month')",
        "SELECT heartd_month_partitions(min(time), max(time)) FROM beats",
        // Block ranges a delivery fills are summarized as the next range starts (autovacuum's work items), not only
        // at the next VACUUM: an unsummarized range matches every BRIN lookup, so a range read just after a delivery
        // read whole months of rows (measured: 170,000 rows for a 20-minute edge).
        "DROP INDEX beats_time",
        "CREATE INDEX beats_time ON beats USING brin (time) WITH (pages_per_range = 32, autosummarize = on)",
        "DROP INDEX heart_rate_time",
        "CREATE INDEX heart_rate_time ON heart_rate USING brin (time) WITH (pages_per_range = 32, autosummarize = on)",
        "INSERT INTO hrv_hourly (\(columns)) "
            + select(from: "(SELECT time AS t, device AS d, rr_ms AS v, sample AS s, row_number() OVER (ORDER BY sample, time) AS i FROM beats)"),
    ]

    /// The columns `select` fills, in its order.
    static let columns = "cell, device, sample, n, k, s, ss, hr, dn, dd, o50, o20"

    /// The roll-up rows of the beats in `source`: a table or subquery with `t` (time), `d` (device id), `v` (RR, ms;
    /// NULL for a series' first beat and after a gap), `s` (sample) and `i` (the beats' order within a series).
    static func select(from source: String) -> String {
        """
        SELECT cell, d, s, count(*)::int, k, sum(rr - k), sum((rr - k) * (rr - k)), sum(60000 / rr), count(dif)::int,
               coalesce(sum(dif * dif), 0), (count(*) FILTER (WHERE abs(dif) > 50))::int,
               (count(*) FILTER (WHERE abs(dif) > 20))::int
        FROM (SELECT cell, d, s, rr, dif, first_value(rr) OVER (PARTITION BY s, cell ORDER BY i) AS k
              FROM (SELECT cell, d, s, i, rr, rr - lag(rr) OVER (PARTITION BY s ORDER BY i) AS dif
                    FROM (SELECT date_bin(interval '\(Int(CentralRollup.cellSeconds)) seconds', b.t, timestamptz '1970-01-01 00:00:00+00') AS cell,
                                 b.d, b.s, b.i, CASE WHEN b.v > 0 AND b.v <> 'NaN' THEN b.v::float8 END AS rr
                          FROM \(source) b) p) q
              WHERE rr IS NOT NULL) r
        GROUP BY cell, d, s, k
        """
    }
}
