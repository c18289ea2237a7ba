import Logging
import PostgresNIO
import SyncConfig

/// The central PostgreSQL schema, created and migrated by `heartd-sync` (docs/CENTRAL.md).
///
/// `heartd_schema` holds one row with the version. Migrations are append-only (never edit a shipped one) and
/// run under a transaction-scoped advisory lock, so twenty gateways starting at once migrate it once.
/// A gateway refuses a schema newer than the last migration it knows (`SyncError.Code.schemaTooNew`).
public enum CentralSchema {
    /// The version this build writes and reads.
    public static var version: Int { migrations.count }

    /// Key of the advisory lock that serializes migrations (any constant no other application uses).
    static let migrationLock: Int64 = 0x6865_6172_7464_0001

    /// Migration N (1-based) brings the schema from version N−1 to N.
    static let migrations: [[String]] = [v1, v2, v3People, CentralPartitions.migration, CentralRollup.migration,
                                            CentralHRVRollup.migration, CentralRollupGateway.migration]

    static let v1 = [
        """
        CREATE TABLE gateways (
            id serial PRIMARY KEY,
            name text NOT NULL UNIQUE,
            machine_id text,
            heartd_version text,
            first_seen timestamptz NOT NULL DEFAULT now(),
            last_seen timestamptz NOT NULL DEFAULT now(),
            delivered_anchor bigint NOT NULL DEFAULT 0)
        """,
        // One row per physical sensor across gateways: a strap that moves between rooms stays one device.
        """
        CREATE TABLE devices (
            id serial PRIMARY KEY,
            address text NOT NULL,
            serial text NOT NULL DEFAULT '',
            name text, manufacturer text, model text,
            hardware_version text, firmware_version text, software_version text,
            metadata jsonb,
            last_gateway int REFERENCES gateways,
            first_seen timestamptz NOT NULL,
            last_seen timestamptz NOT NULL,
            UNIQUE (address, serial))
        """,
        """
        CREATE TABLE samples (
            uuid uuid PRIMARY KEY,
            gateway int NOT NULL REFERENCES gateways,
            device int REFERENCES devices,
            type text NOT NULL,
            start_time timestamptz NOT NULL,
            end_time timestamptz NOT NULL,
            count int NOT NULL,
            average double precision, minimum double precision, maximum double precision,
            most_recent double precision, sum double precision,
            metadata jsonb,
            device_info jsonb,
            sync_identifier text,
            sync_version bigint,
            anchor bigint NOT NULL,
            contents bytea NOT NULL,
            delivered_at timestamptz NOT NULL DEFAULT now())
        """,
        "CREATE UNIQUE INDEX samples_sync_identifier ON samples (sync_identifier) WHERE sync_identifier IS NOT NULL",
        "CREATE INDEX samples_type_start ON samples (type, start_time)",
        "CREATE INDEX samples_device_start ON samples (device, start_time)",
        "CREATE INDEX samples_gateway_start ON samples (gateway, start_time)",
        """
        CREATE TABLE tombstones (
            uuid uuid PRIMARY KEY,
            gateway int NOT NULL REFERENCES gateways,
            type text NOT NULL,
            deleted_at timestamptz NOT NULL)
        """,
        // Expanded rows for SQL users. No foreign key to samples: a btree on `sample` would cost more bytes per
        // beat than the beat itself; rows of a sample are found through the time index plus `sample = …`.
        "CREATE TABLE heart_rate (time timestamptz NOT NULL, device int, bpm real NOT NULL, sample uuid NOT NULL)",
        """
        CREATE TABLE beats (time timestamptz NOT NULL, device int, rr_ms real, preceded_by_gap boolean NOT NULL,
                            sample uuid NOT NULL)
        """,
        // BRIN: rows arrive roughly in time order, so a block range covers a short span (docs/CENTRAL.md, measured).
        "CREATE INDEX heart_rate_time ON heart_rate USING brin (time) WITH (pages_per_range = 32)",
        "CREATE INDEX beats_time ON beats USING brin (time) WITH (pages_per_range = 32)",
    ]

    /// Sessions (HealthModel.Session): one row per session, replaced by its later save (stop) and deleted by its
    /// tombstone; the sync-identifier rule as for samples. Series recorded in a session carry its UUID in
    /// `samples.metadata->>'HeartdSession'`.
    static let v2 = [
        """
        CREATE TABLE sessions (
            uuid uuid PRIMARY KEY,
            gateway int NOT NULL REFERENCES gateways,
            label text,
            start_time timestamptz NOT NULL,
            end_time timestamptz,
            devices text[] NOT NULL,
            metadata jsonb,
            statistics jsonb,
            sync_identifier text,
            sync_version bigint,
            anchor bigint NOT NULL,
            delivered_at timestamptz NOT NULL DEFAULT now())
        """,
        "CREATE UNIQUE INDEX sessions_sync_identifier ON sessions (sync_identifier) WHERE sync_identifier IS NOT NULL",
        "CREATE INDEX sessions_gateway_start ON sessions (gateway, start_time)",
    ]

    /// People (HealthModel.Person) of each gateway: one row per person, replaced by its later save (the higher
    /// anchor wins) and deleted by its tombstone; `strap` is the address they wear now. Series and sessions recorded
    /// while a strap was worn carry the person in `metadata->>'HeartdPerson'` (and `'HeartdPersonName'`).
    static let v3People = [
        """
        CREATE TABLE people (
            uuid uuid PRIMARY KEY,
            gateway int NOT NULL REFERENCES gateways,
            name text NOT NULL,
            heart_rate_maximum int,
            age int,
            weight_kg double precision,
            resting_heart_rate int,
            strap text,
            anchor bigint NOT NULL,
            delivered_at timestamptz NOT NULL DEFAULT now())
        """,
        "CREATE INDEX people_gateway ON people (gateway)",
    ]

    /// Creates or migrates the schema; throws `schemaTooNew` when the database is ahead of this build.
    public static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(migrationLock))", logger: logger)
            try await connection.query(
                "CREATE TABLE IF NOT EXISTS heartd_schema (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL)",
                logger: logger)
            var current = 0
            for try await found in try await connection.query("SELECT version FROM heartd_schema", logger: logger)
                .decode(Int.self) { current = found }
            guard current <= version else {
                throw SyncError(.schemaTooNew, "the central schema is version \(current); this heartd knows up to \(version): upgrade heartd")
            }
            guard current < version else { return }
            for (index, statements) in migrations.enumerated() where index + 1 > current {
                for statement in statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
            }
            try await connection.query("""
                INSERT INTO heartd_schema (id, version) VALUES (1, \(version))
                ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version
                """, logger: logger)
            logger.notice("central schema migrated", metadata: ["from": "\(current)", "to": "\(version)"])
        }
    }
}
