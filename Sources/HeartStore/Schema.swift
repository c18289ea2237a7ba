import GRDB

/// The database schema. Migrations are append-only: a migration that has shipped is never edited;
/// changes go into a new migration named `vN-...`.
///
/// Dates are REAL seconds since 2001-01-01T00:00:00Z (Foundation's reference date), which round-trips
/// every `Date` bit for bit. In SQL: `datetime(startDate + 978307200, 'unixepoch')`.
/// Series contents are the blobs of `HeartbeatSeriesCoding` / `QuantitySeriesCoding`.
enum Schema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.create(table: "devices") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("address", .text).unique() // the Bluetooth address (DeviceInfo.localIdentifier)
                t.column("name", .text)
                t.column("manufacturer", .text)
                t.column("model", .text)
                t.column("hardwareVersion", .text)
                t.column("firmwareVersion", .text)
                t.column("softwareVersion", .text)
                t.column("udiDeviceIdentifier", .text)
                t.column("metadata", .text) // JSON object, NULL when empty
                t.column("firstSeen", .double).notNull()
                t.column("lastSeen", .double).notNull()
            }
            try db.create(table: "samples") { t in
                t.primaryKey("uuid", .blob) // 16 bytes
                t.column("type", .text).notNull() // quantity type identifier or HKDataTypeIdentifierHeartbeatSeries
                t.column("startDate", .double).notNull()
                t.column("endDate", .double).notNull()
                t.column("count", .integer).notNull()
                t.column("average", .double)
                t.column("minimum", .double)
                t.column("maximum", .double)
                t.column("mostRecent", .double)
                t.column("sum", .double)
                t.column("deviceId", .integer).references("devices", onDelete: .setNull)
                // The sample's DeviceInfo as JSON when it differs from the device row (the row changed later).
                t.column("deviceSnapshot", .text)
                t.column("metadata", .text)
                t.column("syncIdentifier", .text)
                t.column("syncVersion", .integer)
                t.column("anchor", .integer).notNull().unique() // change sequence
                t.column("contents", .blob).notNull()
            }
            try db.create(index: "samples_type_start", on: "samples", columns: ["type", "startDate"])
            try db.create(index: "samples_device_start", on: "samples", columns: ["deviceId", "startDate"])
            try db.create(index: "samples_start", on: "samples", columns: ["startDate"])
            try db.create(index: "samples_sync", on: "samples", columns: ["syncIdentifier", "syncVersion"],
                          condition: Column("syncIdentifier") != nil)
            try db.create(table: "tombstones") { t in
                t.primaryKey("uuid", .blob)
                t.column("type", .text).notNull()
                t.column("deletedAt", .double).notNull()
                t.column("anchor", .integer).notNull().unique()
            }
            // Open series journaled every second or so, finished by recovery after a crash.
            try db.create(table: "open_series") { t in
                t.primaryKey("uuid", .blob)
                t.column("deviceAddress", .text)
                t.column("kind", .text).notNull() // type identifier, as in samples.type
                t.column("startDate", .double).notNull()
                t.column("endDate", .double).notNull()
                t.column("contents", .blob).notNull()
                t.column("metadata", .text)
                t.column("device", .text) // DeviceInfo JSON
                t.column("updatedAt", .double).notNull()
            }
            // The last anchor handed out; a single row.
            try db.create(table: "store_state") { t in
                t.primaryKey("id", .integer).check { $0 == 1 }
                t.column("lastAnchor", .integer).notNull()
            }
            try db.execute(sql: "INSERT INTO store_state (id, lastAnchor) VALUES (1, 0)")
            // The longest sample per type, so range queries can bound their index scan on startDate.
            try db.create(table: "type_extent") { t in
                t.primaryKey("type", .text)
                t.column("maxDuration", .double).notNull()
            }
        }
        migrator.registerMigration("v2-device-metadata") { db in
            // 1 when the row's `metadata` leaves out the keys of its device's metadata (serial number, sensor
            // location: the same on every sample of a device) and reads merge them back from the device.
            // Old rows keep 0 and their full metadata. Integers 0 and 1 take no bytes in an SQLite record.
            try db.alter(table: "samples") { t in
                t.add(column: "inheritsDeviceMetadata", .integer).notNull().defaults(to: 0)
            }
        }
        migrator.registerMigration("v3-sessions") { db in
            // Sessions (HKWorkout): active while endDate is NULL; statistics (JSON) written when they end.
            try db.create(table: "sessions") { t in
                t.primaryKey("uuid", .blob)
                t.column("label", .text)
                t.column("startDate", .double).notNull()
                t.column("endDate", .double)
                t.column("devices", .text).notNull() // JSON array of Bluetooth addresses; [] = every sensor
                t.column("metadata", .text)
                t.column("syncIdentifier", .text)
                t.column("syncVersion", .integer)
                t.column("statistics", .text) // SessionStatistics JSON, NULL while active
                t.column("anchor", .integer).notNull().unique() // the anchor of its latest save
            }
            try db.create(index: "sessions_start", on: "sessions", columns: ["startDate"])
            try db.create(index: "sessions_active", on: "sessions", columns: ["startDate"],
                          condition: Column("endDate") == nil)
        }
        migrator.registerMigration("v4-people") { db in
            // People and the strap each wears now (a strap at most one person, a person at most one strap); the
            // series and sessions recorded while assigned carry the person, which is the assignment's history.
            try db.create(table: "people") { t in
                t.primaryKey("uuid", .blob)
                t.column("name", .text).notNull()
                t.column("heartRateMaximum", .integer)
                t.column("age", .integer)
                t.column("weightKg", .double)
                t.column("restingHeartRate", .integer)
                t.column("strap", .text).unique() // Bluetooth address, upper case; NULL: none
                t.column("anchor", .integer).notNull().unique() // the anchor of its latest save
            }
        }
        migrator.registerMigration("v5-heart-rate-hourly") { db in
            // Per heart-rate sample and UTC hour, the totals `stats` sums over long ranges (`HeartRateRollup`);
            // every stored heart-rate sample is rolled up here.
            try HeartRateRollup.migrate(db)
        }
        migrator.registerMigration("v6-heartbeat-hourly") { db in
            // Per heartbeat series and UTC hour, HRV's running sums (`HeartbeatRollup`); every stored series is
            // rolled up here.
            try HeartbeatRollup.migrate(db)
        }
        return migrator
    }

    /// A store of an older version opened read-only cannot be migrated: on each connection, a temporary view
    /// shadows a table that lacks a later column with that column's default, so every read path works
    /// unchanged (unqualified names resolve to `temp` first).
    static func shadowMissingColumns(_ db: Database) throws {
        let columns = try db.columns(in: "samples").map(\.name)
        guard !columns.isEmpty, !columns.contains("inheritsDeviceMetadata") else { return }
        try db.execute(sql: "CREATE TEMP VIEW samples AS SELECT *, 0 AS inheritsDeviceMetadata FROM main.samples")
    }

    /// Whether a store can be read read-only: it has at least the first migration (later columns are
    /// shadowed by `shadowMissingColumns`).
    static func isReadable(_ db: Database) throws -> Bool {
        try migrator.appliedIdentifiers(db).contains("v1-initial")
    }
}
