import Foundation
import HealthModel
import HeartStore
import PostgresNIO

/// HRV over a long range where the data is: the hourly sums of `hrv_hourly` (`CentralHRVRollup`) of every heartbeat
/// series in scope, summed by PostgreSQL into one row, as the store's `HeartDatabase.heartbeatRollup` sums its own.
extension CentralReader {
    /// The HRV sums of the heartbeat series `f` selects (whole series overlapping its range, as
    /// `forEachSample` streams them), when they hold more than `beatsAbove` beats; nil when they hold fewer (the
    /// caller streams the beats, which a full analysis needs).
    ///
    /// Two statements in one read-only transaction: the series' beat count and span (a constant to the planner, so
    /// it reads only the months of that span), then the sums of their hours, each hour's re-shifted to one shift
    /// (the mean of the hours' first RR) so the variance behind SDNN loses nothing to cancellation.
    public func heartbeatRollup(_ f: Filter, beatsAbove: Int) async throws(SyncError) -> HeartbeatHourSums? {
        var scope = f
        scope.type = Sample.heartbeatSeriesIdentifier
        scope.limit = nil
        do {
            try await connection.query("BEGIN TRANSACTION READ ONLY", logger: logger)
            do {
                let sums = try await rollupSums(scope, beatsAbove: beatsAbove)
                try await connection.query("COMMIT", logger: logger)
                return sums
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        } catch {
            throw CentralConnector.map(error, context: "summing HRV")
        }
    }

    private func rollupSums(_ f: Filter, beatsAbove: Int) async throws -> HeartbeatHourSums? {
        var binds = PostgresBindings()
        let condition = f.condition(&binds)
        let from = "FROM samples s JOIN gateways g ON g.id = s.gateway LEFT JOIN devices d ON d.id = s.device WHERE \(condition)"
        var span: (beats: Int64, start: Date, end: Date)?
        for try await (beats, start, end) in try await connection.query(
            PostgresQuery(unsafeSQL: "SELECT sum(s.count)::int8, min(s.start_time), max(s.end_time) \(from)", binds: binds),
            logger: logger).decode((Int64?, Date?, Date?).self) {
            if let beats, let start, let end { span = (beats, start, end) }
        }
        guard let span, span.beats > beatsAbove else { return nil }
        let lower = binds.count + 1
        binds.append(span.start)
        binds.append(span.end)
        // `--gateway`: its own rows by the (gateway, cell) index; the samples still pick the series (whole series that
        // overlap the range, whose hours may reach past it), now among the gateway's rows only.
        var own = ""
        if let gateway = f.gateway {
            binds.append(gateway)
            own = " AND " + CentralRollupGateway.condition("h", gateway: "$\(binds.count)")
        }
        let sql = """
            WITH h AS MATERIALIZED (
                SELECT h.n, h.k, h.s, h.ss, h.hr, h.dn, h.dd, h.o50, h.o20 FROM hrv_hourly h
                WHERE h.cell >= date_bin('1 hour', $\(lower), timestamptz '1970-01-01 00:00:00+00') AND h.cell <= $\(lower + 1)
                  AND h.sample IN (SELECT s.uuid \(from))\(own))
            SELECT sum(n)::int8, c.k, sum(s + n * (h.k - c.k)), sum(ss + 2 * (h.k - c.k) * s + n * (h.k - c.k) * (h.k - c.k)),
                   sum(hr), sum(dn)::int8, sum(dd), sum(o50)::int8, sum(o20)::int8
            FROM h, (SELECT avg(k) AS k FROM h) c
            GROUP BY c.k
            """
        var sums = HeartbeatHourSums()
        for try await (n, k, s, ss, hr, dn, dd, o50, o20) in try await connection.query(
            PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            .decode((Int64, Double, Double, Double, Double, Int64, Double, Int64, Int64).self) {
            sums.count = Int(n)
            sums.shift = k
            sums.shiftedSum = s
            sums.shiftedSquares = ss
            sums.rateSum = hr
            sums.differences = Int(dn)
            sums.squaredDifferences = dd
            sums.over50 = Int(o50)
            sums.over20 = Int(o20)
        }
        return sums
    }
}
