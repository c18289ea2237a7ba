import Foundation
import HealthModel
import Logging
import PostgresNIO

/// Per-interval statistics computed where the data is: PostgreSQL groups the `heart_rate` rows of the samples in
/// scope by time bucket (`CentralBucketQuery`: on the grid `anchor + k·interval`, as `stats --interval` anchors it)
/// and returns one row of running totals per bucket — a year of one strap in daily buckets is 365 rows, never its
/// 31 M points. Each point counts in every bucket it overlaps with its overlap there (its `end_time`), by the rules
/// of `QuantityStatistics`: the totals go into the same `QuantityStatisticsBuilder` the stores fill point by point,
/// and the few points that are not whole in one bucket of the range come back as points and are added by the
/// builder itself, so `--central` and `--db` answer alike. Types without an expanded table (energy, SDNN samples)
/// stream their samples through a server-side cursor into the builder instead.
extension CentralReader {
    /// Fills `builder` with the points of the samples `f` selects (its `type`, range and filters; `from`/`to` are
    /// the builder's). Returns whether any point was in the range.
    public func statistics(_ f: Filter, type: QuantityType, into builder: inout QuantityStatisticsBuilder) async throws(SyncError) -> Bool {
        // PostgreSQL's buckets are whole microseconds; another interval is streamed (correct, only slower).
        guard type == .heartRate, CentralBucketQuery.answers(builder) else {
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
        do {
            var any = false
            try await connection.query("BEGIN TRANSACTION READ ONLY", logger: logger)
            do {
                let (earliestSQL, earliestBinds) = CentralBucketQuery.earliestSQL(f)
                var earliest: Date?
                for try await first in try await connection.query(PostgresQuery(unsafeSQL: earliestSQL, binds: earliestBinds),
                                                                  logger: logger).decode(Date?.self) {
                    earliest = first
                }
                guard let earliest else {
                    try await connection.query("COMMIT", logger: logger)
                    return false
                }
                // Whole hours inside the range come from the hourly roll-up; the rows around them row by row.
                let cells = CentralRollup.cells(from: builder.from, to: builder.to, interval: builder.interval,
                                                origin: CentralBucketQuery.origin(builder), buckets: builder.bucketCount)
                let query = CentralBucketQuery(f, builder: builder, earliest: earliest, rolledUp: cells)
                for setting in CentralBucketQuery.settings {
                    try await connection.query(PostgresQuery(unsafeSQL: setting), logger: logger)
                }
                let rows = try await connection.query(PostgresQuery(unsafeSQL: query.sql, binds: query.binds), logger: logger)
                for try await (b, count, minimum, maximum, sum, weighted, weights, recentStart, recent, rest) in rows.decode(
                    (Date, Int64, Double?, Double?, Double?, Double?, Double?, Date?, Double?, [Double]?).self) {
                    any = Self.merge(b, count, minimum, maximum, sum, weighted, weights, recentStart, recent, query: query,
                                     into: &builder) || any
                    any = Self.add(rest, into: &builder) || any
                }
                if let cells {
                    let rollup = CentralRollupQuery(f, builder: builder, cells: cells)
                    let totals = try await connection.query(PostgresQuery(unsafeSQL: rollup.totals, binds: rollup.binds), logger: logger)
                    for try await (b, count, minimum, maximum, sum, weighted, weights, recentStart, recent) in totals.decode(
                        (Date, Int64, Double?, Double?, Double?, Double?, Double?, Date?, Double?).self) {
                        any = Self.merge(b, count, minimum, maximum, sum, weighted, weights, recentStart, recent, query: query,
                                         into: &builder) || any
                    }
                    let rest = try await connection.query(PostgresQuery(unsafeSQL: rollup.rest, binds: rollup.binds), logger: logger)
                    for try await points in rest.decode([Double]?.self) {
                        any = Self.add(points, into: &builder) || any
                    }
                }
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
            return any
        } catch {
            throw CentralConnector.map(error, context: "computing statistics")
        }
    }

    /// One bucket's totals into the builder; whether there were any.
    private static func merge(_ b: Date, _ count: Int64, _ minimum: Double?, _ maximum: Double?, _ sum: Double?, _ weighted: Double?,
                              _ weights: Double?, _ recentStart: Date?, _ recent: Double?, query: CentralBucketQuery,
                              into builder: inout QuantityStatisticsBuilder) -> Bool {
        guard count > 0, let minimum, let maximum, let sum, let weighted, let weights, let recentStart, let recent else { return false }
        builder.merge(BucketTotals(count: Int(count), minimum: minimum, maximum: maximum, plainSum: sum, weightedSum: weighted,
                                   weights: weights, sum: sum, duration: weights, mostRecent: recent, mostRecentStart: recentStart),
                      intoBucket: query.index(of: b))
        return true
    }

    /// The points not whole in one bucket (or roll-up hour) of the range: start, end (epoch seconds) and value, in
    /// threes, added by the builder's own rule; whether there were any.
    private static func add(_ points: [Double]?, into builder: inout QuantityStatisticsBuilder) -> Bool {
        let points = points ?? []
        for i in Swift.stride(from: 0, to: points.count - 2, by: 3) {
            builder.add(QuantityPoint(value: points[i + 2], start: Date(timeIntervalSince1970: points[i]),
                                      end: Date(timeIntervalSince1970: points[i + 1])))
        }
        return points.count >= 3
    }
}
