import Foundation
import Logging
import PostgresNIO

/// The expanded tables (`beats`, `heart_rate`: one row per beat or point) partitioned by month, UTC (native
/// declarative partitioning), so a year of a fleet is twelve tables per kind whose old months can be detached or
/// dropped while `samples` keeps every series (docs/CENTRAL.md).
///
/// Partitions are made by `heartd_month_partitions(from, to)`, a function of the schema: every month of [from, to]
/// that has no attached partition gets `beats_YYYY_MM` and `heart_rate_YYYY_MM` (a suffix when a detached table
/// still holds the name). It checks without a lock and only locks (transaction-scoped advisory lock) to create,
/// so twenty gateways delivering the same month create it once and never wait for each other afterwards.
/// `heartd-sync` calls it for this month and the next when it connects (`ensureAhead`), and every batch for the
/// span of its own samples before it writes their rows (`ensure`), so a row never finds its month missing.
public enum CentralPartitions {
    /// Key of the advisory lock that serializes partition creation.
    static let lock: Int64 = 0x6865_6172_7464_0002

    /// Version 4 of the central schema: the expanded tables become monthly-partitioned (their rows moved), and
    /// `heart_rate` gains `end_time` — the point's end, so per-interval statistics weigh each point by its overlap
    /// in SQL as the stores do (rows moved from version 3 keep NULL: they count as instants).
    static let migration = [
        "ALTER TABLE beats RENAME TO beats_unpartitioned",
        "ALTER TABLE heart_rate RENAME TO heart_rate_unpartitioned",
        "DROP INDEX beats_time",
        "DROP INDEX heart_rate_time",
        """
        CREATE TABLE beats (time timestamptz NOT NULL, device int, rr_ms real, preceded_by_gap boolean NOT NULL,
                            sample uuid NOT NULL) PARTITION BY RANGE (time)
        """,
        """
        CREATE TABLE heart_rate (time timestamptz NOT NULL, device int, bpm real NOT NULL, sample uuid NOT NULL,
                                 end_time timestamptz) PARTITION BY RANGE (time)
        """,
        // Created on the parent, so every partition gets its own BRIN index.
        "CREATE INDEX beats_time ON beats USING brin (time) WITH (pages_per_range = 32)",
        "CREATE INDEX heart_rate_time ON heart_rate USING brin (time) WITH (pages_per_range = 32)",
        function(parents: ["beats", "heart_rate"]),
        // Every month the old rows span, this one and the next; then the rows move.
        """
        SELECT heartd_month_partitions(
            least(now(), (SELECT min(time) FROM beats_unpartitioned), (SELECT min(time) FROM heart_rate_unpartitioned)),
            greatest(now() + interval '1 month', (SELECT max(time) FROM beats_unpartitioned), (SELECT max(time) FROM heart_rate_unpartitioned)))
        """,
        "INSERT INTO beats (time, device, rr_ms, preceded_by_gap, sample) SELECT time, device, rr_ms, preceded_by_gap, sample FROM beats_unpartitioned",
        "INSERT INTO heart_rate (time, device, bpm, sample) SELECT time, device, bpm, sample FROM heart_rate_unpartitioned",
        "DROP TABLE beats_unpartitioned",
        "DROP TABLE heart_rate_unpartitioned",
    ]

    /// `heartd_month_partitions(lo, hi)`: every month of [lo, hi] that has no attached partition of each of `parents`
    /// gets one (`replace`: a later migration that adds a parent redefines it).
    static func function(parents: [String], replace: Bool = false) -> String {
        """
        \(replace ? "CREATE OR REPLACE" : "CREATE") FUNCTION heartd_month_partitions(lo timestamptz, hi timestamptz) RETURNS int LANGUAGE plpgsql AS $$
        DECLARE
            m timestamptz := date_trunc('month', lo, 'UTC');
            upper_bound timestamptz;
            parent text;
            part text;
            created int := 0;
        BEGIN
            WHILE m <= hi LOOP
                upper_bound := (m AT TIME ZONE 'UTC' + interval '1 month') AT TIME ZONE 'UTC';
                FOREACH parent IN ARRAY ARRAY[\(parents.map { "'\($0)'" }.joined(separator: ", "))] LOOP
                    part := parent || '_' || to_char(m AT TIME ZONE 'UTC', 'YYYY_MM');
                    CONTINUE WHEN EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                                          WHERE i.inhparent = parent::regclass AND c.relname LIKE part || '%');
                    PERFORM pg_advisory_xact_lock(\(lock));
                    CONTINUE WHEN EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                                          WHERE i.inhparent = parent::regclass AND c.relname LIKE part || '%');
                    IF to_regclass(part) IS NOT NULL THEN
                        part := part || '_' || to_char(clock_timestamp(), 'YYYYMMDDHH24MISS');
                    END IF;
                    EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)', part, parent, m, upper_bound);
                    created := created + 1;
                END LOOP;
                m := upper_bound;
            END LOOP;
            RETURN created;
        END $$
        """
    }

    /// This month's and the next month's partitions (`heartd-sync` at every connect): a new month's partition
    /// exists before its first row arrives.
    public static func ensureAhead(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT heartd_month_partitions(now(), now() + interval '1 month')", logger: logger)
    }

    /// The partitions of every month of [from, to] (a batch's span), inside the batch's transaction.
    static func ensure(_ connection: PostgresConnection, from: Date, to: Date, logger: Logger) async throws {
        try await connection.query("SELECT heartd_month_partitions(\(from), \(to))", logger: logger)
    }
}
