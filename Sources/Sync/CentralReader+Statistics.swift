import Foundation
import HealthModel
import Logging
import PostgresNIO

/// Per-interval statistics computed where the data is: PostgreSQL groups the `heart_rate` rows of the samples in
/// scope by time bucket (`GROUP BY` the bucket index on the grid `anchor + k·interval`, as `stats --interval`
/// anchors it) and returns one row of running totals per bucket — a year of one strap in daily buckets is 365
/// rows, never its 31 M points. Each point counts in every bucket it overlaps with its overlap there (its
/// `end_time`), by the rules of `QuantityStatistics`; the totals go into the same `QuantityStatisticsBuilder` the
/// stores fill point by point, so `--central` and `--db` answer alike. Seconds are `date_part`'s float8 (`extract`
/// is numeric since PostgreSQL 14, several times slower per row). Types without an expanded table (energy,
/// SDNN samples) stream their samples through a server-side cursor into the builder instead.
extension CentralReader {
    /// Fills `builder` with the points of the samples `f` selects (its `type`, range and filters; `from`/`to` are
    /// the builder's). Returns whether any point was in the range.
    public func statistics(_ f: Filter, type: QuantityType, into builder: inout QuantityStatisticsBuilder) async throws(SyncError) -> Bool {
        guard type == .heartRate else {
            var any = false
            try await forEachSample(f) { sample in
                guard case .quantity(let q) = sample else { return }
                for point in q.points where point.start < builder.to && point.end >= builder.from {
                    any = true
                    builder.add(point)
                }
            }
            return any
        }
        var binds = PostgresBindings()
        let condition = f.condition(&binds)
        let lo = builder.from.timeIntervalSince1970, hi = builder.to.timeIntervalSince1970
        let anchor = builder.anchor.timeIntervalSince1970, interval = builder.interval
        binds.append(builder.to)
        let to = binds.count
        for value in [lo, hi, anchor, interval] { binds.append(value) }
        let (l, h, a, i) = (to + 1, to + 2, to + 3, to + 4)
        let sql = """
            WITH scope AS (
                SELECT s.uuid, s.start_time FROM samples s JOIN gateways g ON g.id = s.gateway
                LEFT JOIN devices d ON d.id = s.device WHERE \(condition)),
            p AS (
                SELECT date_part('epoch', r.time) AS ps,
                       greatest(date_part('epoch', coalesce(r.end_time, r.time)), date_part('epoch', r.time)) AS pe,
                       r.bpm::float8 AS v
                FROM heart_rate r
                WHERE r.sample IN (SELECT uuid FROM scope) AND r.time >= (SELECT min(start_time) FROM scope) AND r.time < $\(to)),
            q AS (
                SELECT ps, pe, v, greatest(ps, $\(l)::float8) AS cs, least(pe, $\(h)::float8) AS ce FROM p
                WHERE (pe = ps AND ps >= $\(l)::float8 AND ps < $\(h)::float8) OR (pe > ps AND ps < $\(h)::float8 AND pe > $\(l)::float8)),
            k AS (
                SELECT q.*, floor((cs - $\(a)::float8) / $\(i)::float8)::bigint AS k1,
                       CASE WHEN pe = ps THEN floor((ps - $\(a)::float8) / $\(i)::float8)::bigint
                            ELSE ceil((ce - $\(a)::float8) / $\(i)::float8)::bigint - 1 END AS k2
                FROM q),
            b AS (
                SELECT k1 AS k, ps, pe, v, cs, ce FROM k WHERE k1 >= k2
                UNION ALL
                SELECT g, ps, pe, v, cs, ce FROM k CROSS JOIN LATERAL generate_series(k1, k2) AS g WHERE k1 < k2),
            o AS (
                SELECT k, ps, pe, v,
                       CASE WHEN pe = ps THEN 0
                            ELSE least(ce, $\(a)::float8 + (k + 1) * $\(i)::float8) - greatest(cs, $\(a)::float8 + k * $\(i)::float8) END AS ov
                FROM b)
            SELECT k, count(*), min(v), max(v), sum(v), sum(v * ov), sum(ov),
                   sum(CASE WHEN pe = ps THEN v ELSE v * ov / (pe - ps) END), (max(ARRAY[ps, v]))[2], max(ps)
            FROM o WHERE pe = ps OR ov > 0 GROUP BY k ORDER BY k
            """
        do {
            var any = false
            let rows = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            for try await (k, count, minimum, maximum, plain, weighted, weights, sum, recent, recentStart) in rows.decode(
                (Int64, Int64, Double, Double, Double, Double, Double, Double, Double, Double).self) {
                any = true
                builder.merge(BucketTotals(count: Int(count), minimum: minimum, maximum: maximum, plainSum: plain,
                                           weightedSum: weighted, weights: weights, sum: sum, duration: weights,
                                           mostRecent: recent, mostRecentStart: Date(timeIntervalSince1970: recentStart)),
                              intoBucket: Int(k))
            }
            return any
        } catch {
            throw CentralConnector.map(error, context: "computing statistics")
        }
    }
}
