import Foundation
import HealthModel
import PostgresNIO

/// The one SQL statement behind `heartctl --central stats` on heart rate: `heart_rate` rows grouped by time bucket
/// in PostgreSQL, one row of totals per bucket back (docs/CENTRAL.md, "Per-interval statistics").
///
/// It is shaped by what EXPLAIN ANALYZE showed over 7.8 M rows (90 days of 1 Hz): a row-by-row pipeline must stay
/// as cheap as the naive `GROUP BY date_trunc` beside it.
/// - Buckets are `date_bin(interval, time, origin)` on the timestamps (microseconds, exact), not epoch seconds:
///   `date_part('epoch', …)` parses its unit per call and was inlined into every expression that used it.
/// - A row is *simple* when it lies whole in one bucket and in [from, to): it counts there with its whole
///   duration, as `QuantityStatisticsBuilder.add` would count it. Every other row (it starts before `from`, ends after
///   `to`, or crosses a bucket bound — a handful a bucket) comes back in the bucket's `rest` array and the client adds
///   it with the builder's own rule, so no row is multiplied in SQL (a `UNION ALL` over one CTE had spilled
///   7.8 M rows to disk) and `--central` answers as `--db`.
/// - Each row's values are computed once (`OFFSET 0` keeps the subqueries apart; inlined, every `CASE` repeated them).
/// - The most recent value of a bucket is looked up from its latest start (`mt`) through the BRIN index, about a
///   millisecond a bucket, rather than carried through the aggregate as `max(ARRAY[start, value])`, an array a row
///   (+50 % of the whole query); past `lookupLimit` buckets the array is cheaper and is used.
/// - The grouping runs as a hash: the planner estimates as many buckets as rows, so it would sort millions of rows
///   to disk; `enable_sort = off` for this statement only (no `ORDER BY`: the client places each bucket by its start).
///   JIT is off too: compiling this statement took 5 s of a 14 s run.
/// - Samples are only joined when a filter needs them (gateway, metadata, one sample): a row's time and device are
///   on the row itself, and `heart_rate` rows exist only for heart-rate samples (a deleted sample's rows go with it).
struct CentralBucketQuery {
    /// Buckets up to which the most recent value is looked up per bucket.
    static let lookupLimit = 1000

    var sql: String
    var binds: PostgresBindings
    /// The grid start of the first bucket (≤ `from`: `date_bin` counts from it), and the grid index it has.
    let origin: Date
    let firstIndex: Int
    let interval: TimeInterval

    /// Statement settings for this read only (`SET LOCAL` inside its transaction).
    static let settings = ["SET LOCAL enable_sort = off", "SET LOCAL jit = off"]

    /// `earliest`: the start of the earliest sample in scope (`earliestSQL`), a constant to the planner. `rolledUp`:
    /// the rows starting in [lower, upper) are left out (`CentralRollupQuery` answers for them).
    init(_ f: CentralReader.Filter, builder: QuantityStatisticsBuilder, earliest: Date, rolledUp: (lower: Date, upper: Date)? = nil) {
        var binds = PostgresBindings()
        firstIndex = builder.firstBucketIndex
        interval = builder.interval
        origin = Self.origin(builder)
        func bind(_ value: some PostgresNonThrowingEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let scope = Self.rowScope(f, &binds)
        let lo = bind(builder.from), hi = bind(builder.to), start = bind(origin)
        let width = "make_interval(secs => \(bind(Self.stride(builder)))::float8)"
        let first = bind(earliest)
        let outside = rolledUp.map { " AND (r.time < \(bind($0.lower)) OR r.time >= \(bind($0.upper)))" } ?? ""
        let lookup = builder.bucketCount <= Self.lookupLimit
        sql = """
            WITH a AS MATERIALIZED (
                SELECT b, count(v1) AS n, min(v1) AS lo, max(v1) AS hi, sum(v1) AS s, sum(v1 * d1) AS sw, sum(d1) AS w,
                       max(t1) AS mt, \(lookup ? "" : "max(m1) AS m,")
                       array_agg(ARRAY[date_part('epoch', t), date_part('epoch', e), v]) FILTER (WHERE v1 IS NULL) AS rest
                FROM (SELECT b, t, e, v, CASE WHEN simple THEN v END AS v1,
                             CASE WHEN simple THEN date_part('epoch', e - t) END AS d1, CASE WHEN simple THEN t END AS t1
                             \(lookup ? "" : ", CASE WHEN simple THEN ARRAY[date_part('epoch', t), v] END AS m1")
                      FROM (SELECT b, t, e, v, (t >= \(lo) AND e <= \(hi) AND e <= b + \(width)) AS simple
                            FROM (SELECT date_bin(\(width), greatest(r.time, \(lo)), \(start)) AS b, r.time AS t,
                                         greatest(coalesce(r.end_time, r.time), r.time) AS e, r.bpm::float8 AS v
                                  FROM heart_rate r
                                  WHERE \(scope) AND r.time >= \(first) AND r.time < \(hi)
                                    AND (r.time >= \(lo) OR r.end_time > \(lo))\(outside)
                                  OFFSET 0) r0
                            OFFSET 0) r1
                      OFFSET 0) r2
                GROUP BY b)
            SELECT a.b, a.n, a.lo, a.hi, a.s, a.sw, a.w, a.mt,
                   \(lookup ? "(SELECT max(r.bpm) FROM heart_rate r WHERE r.time = a.mt AND \(scope))::float8" : "a.m[2]"),
                   (SELECT array_agg(u) FROM unnest(a.rest) u)
            FROM a
            """
        self.binds = binds
    }

    /// The grid start of the first bucket.
    static func origin(_ builder: QuantityStatisticsBuilder) -> Date {
        builder.anchor.addingTimeInterval(Double(builder.firstBucketIndex) * builder.interval)
    }

    /// The bucket width `date_bin` is given. One bucket (statistics over the whole range): a stride that reaches
    /// past `to`, so `date_bin` stays finite.
    static func stride(_ builder: QuantityStatisticsBuilder) -> TimeInterval {
        builder.bucketCount == 1
            ? min(builder.interval, builder.to.timeIntervalSince(origin(builder)) + 1) : builder.interval
    }

    /// The condition on rows `r` (of `heart_rate` or `heart_rate_hourly`) in scope: their own device, or through
    /// their samples when a filter needs the samples. `gatewayColumn`: the rows carry their gateway (the roll-ups,
    /// `CentralRollupGateway`), so a filter of only gateway and time reads the gateway's rows by its index rather than
    /// every gateway's rows matched against its samples. The time needs no samples: the caller bounds the rows'
    /// cells inside the range, and a sample with a point in a cell there overlaps the range.
    static func rowScope(_ f: CentralReader.Filter, _ binds: inout PostgresBindings, gatewayColumn: Bool = false) -> String {
        if gatewayColumn, let gateway = f.gateway, f.uuid == nil, f.device == nil, f.metadata.isEmpty {
            binds.append(gateway)
            return CentralRollupGateway.condition("r", gateway: "$\(binds.count)")
        }
        if f.uuid != nil || f.gateway != nil || !f.metadata.isEmpty {
            return """
                r.sample IN (SELECT s.uuid FROM samples s JOIN gateways g ON g.id = s.gateway
                             LEFT JOIN devices d ON d.id = s.device WHERE \(f.condition(&binds)))
                """
        } else if let device = f.device {
            binds.append(device)
            return "r.device IN (SELECT id FROM devices WHERE address = $\(binds.count))"
        }
        return "true"
    }

    /// Whether the grid is one `date_bin` draws: an interval of whole microseconds (`stats` takes down to 1 ms).
    static func answers(_ builder: QuantityStatisticsBuilder) -> Bool {
        let microseconds = builder.interval * 1_000_000
        return builder.bucketCount == 1 || (microseconds.isFinite && microseconds == microseconds.rounded())
    }

    /// The start of the earliest sample `f` selects (NULL: none). A point starts in its sample, so it bounds the
    /// scan; bound as a constant rather than a subquery, the planner prunes the months before it and reads whole
    /// months by a sequential scan (with a subquery's value unknown it chose lossy bitmap scans, 20 % slower).
    /// `ORDER BY … LIMIT 1` rather than `min()`: with the joins `min()` was a sequential scan of every sample (their
    /// contents inline: 54 ms for 90 days of one gateway, growing with the fleet); this walks `samples_type_start`
    /// from the type's first sample and stops at the first that reaches `from` (0.2 ms for a range from the start;
    /// a range that starts later walks the entries before it).
    static func earliestSQL(_ f: CentralReader.Filter) -> (sql: String, binds: PostgresBindings) {
        var binds = PostgresBindings()
        let condition = f.condition(&binds)
        return ("""
            SELECT s.start_time FROM samples s JOIN gateways g ON g.id = s.gateway
            LEFT JOIN devices d ON d.id = s.device WHERE \(condition) ORDER BY s.start_time LIMIT 1
            """, binds)
    }

    /// The grid index of the bucket that starts at `b`.
    func index(of b: Date) -> Int {
        firstIndex + Int((b.timeIntervalSince(origin) / interval).rounded())
    }
}
