import Foundation
import Logging
import NIOCore
import PostgresNIO
import SyncConfig

/// Writes one `CentralBatch` inside an open transaction: devices, deletions, the sync-version rule, samples,
/// their expanded rows, and last the gateway's delivered anchor.
struct CentralBatchWriter {
    let connection: PostgresConnection
    let gateway: Int32
    let logger: Logger

    func write(_ prepared: PreparedBatch) async throws -> DeliveryReport {
        let batch = prepared.batch
        var report = DeliveryReport()
        // Lock the gateway row and check nobody moved the anchor since this page was read.
        var delivered: Int64 = -1
        for try await anchor in try await connection.query(
            "SELECT delivered_anchor FROM gateways WHERE id = \(gateway) FOR UPDATE", logger: logger).decode(Int64.self) {
            delivered = anchor
        }
        guard delivered == batch.fromAnchor else {
            throw SyncError(.server, "the delivered anchor is \(delivered), not \(batch.fromAnchor) as read: retrying from it")
        }
        let deviceIds = try await upsertDevices(batch)
        if !batch.deleted.isEmpty {
            try await query("""
                INSERT INTO tombstones (uuid, gateway, type, deleted_at)
                SELECT u, \(gateway), t, d FROM unnest(\(batch.deleted.map(\.uuid)), \(batch.deleted.map(\.typeIdentifier)),
                                                    \(batch.deleted.map(\.deletedAt))) AS x(u, t, d)
                ON CONFLICT (uuid) DO NOTHING
                """)
            report.removed += try await removeSamples(batch.deleted.map(\.uuid))
            report.removed += try await removeSessions(batch.deleted.map(\.uuid))
            report.removed += try await removePeople(batch.deleted.map(\.uuid))
        }
        try await writeSessions(batch, report: &report)
        try await writePeople(batch, report: &report)
        let stale = try await applyVersionRule(batch.versioned, table: "samples", report: &report)
        let columns = batch.sampleColumns(deviceIds: deviceIds, excluding: stale)
        var inserted = Set<UUID>()
        if !columns.uuid.isEmpty {
            let rows = try await query("""
                INSERT INTO samples (uuid, gateway, device, type, start_time, end_time, count, average, minimum, maximum,
                                     most_recent, sum, metadata, device_info, sync_identifier, sync_version, anchor, contents)
                SELECT u, \(gateway), NULLIF(dv, 0), ty, st, en, n, NULLIF(av, 'NaN'), NULLIF(mi, 'NaN'), NULLIF(ma, 'NaN'),
                       NULLIF(mr, 'NaN'), NULLIF(su, 'NaN'), NULLIF(me, '')::jsonb, NULLIF(di, '')::jsonb, NULLIF(si, ''),
                       NULLIF(sv, \(Int64.min)), an, co
                FROM unnest(\(columns.uuid), \(columns.device), \(columns.type), \(columns.start), \(columns.end),
                            \(columns.count), \(columns.average), \(columns.minimum), \(columns.maximum), \(columns.mostRecent),
                            \(columns.sum), \(columns.metadata), \(columns.deviceInfo), \(columns.syncIdentifier),
                            \(columns.syncVersion), \(columns.anchor), \(columns.contents.map { ByteBuffer(bytes: $0) }))
                     AS x(u, dv, ty, st, en, n, av, mi, ma, mr, su, me, di, si, sv, an, co)
                ON CONFLICT (uuid) DO NOTHING
                RETURNING uuid
                """)
            for try await uuid in rows.decode(UUID.self) { inserted.insert(uuid) }
            report.inserted = inserted.count
            report.alreadyPresent = columns.uuid.count - inserted.count
        }
        // Expanded rows only for samples inserted now: a sample already present has its rows already. Usually that
        // is every sample of the batch, whose rows were encoded before the transaction; else they are laid out again.
        var beats = (prepared.beats, prepared.beatCount), heartRate = (prepared.heartRate, prepared.heartRateCount)
        if inserted.count < batch.samples.count {
            let expanded = batch.expandedColumns(deviceIds: PreparedBatch.ordinals(prepared.deviceKeys), only: inserted)
            beats = (PreparedBatch.bindings(expanded.beats), expanded.beats.time.count)
            heartRate = (PreparedBatch.bindings(expanded.heartRate), expanded.heartRate.time.count)
        }
        let ids = prepared.deviceKeys.map { deviceIds[$0] ?? 0 }
        // Every month the rows fall in has its partition before they are written (a gateway catching up months).
        if beats.1 + heartRate.1 > 0, let from = batch.samples.map(\.sample.start).min(),
           let to = batch.samples.map(\.sample.end).max() {
            try await CentralPartitions.ensure(connection, from: from, to: to, logger: logger)
        }
        for (table, rows) in [("beats", beats), ("heart_rate", heartRate)] where rows.1 > 0 {
            var binds = rows.0
            binds.append(ids)
            binds.append(gateway)
            try await connection.query(PostgresQuery(unsafeSQL: Self.expandedInsert[table]!, binds: binds), logger: logger)
        }
        report.beats = beats.1
        report.heartRatePoints = heartRate.1
        try await query("UPDATE gateways SET delivered_anchor = \(batch.toAnchor), last_seen = now() WHERE id = \(gateway)")
        report.anchor = batch.toAnchor
        return report
    }

    /// The expanded rows' statements: five arrays of rows (device as an ordinal; for heart rate a sixth, the
    /// points' ends), the ordinals' device ids and the gateway's id (the roll-up rows' `gateway`, `CentralRollupGateway`).
    static let expandedInsert = [
        // The beats feed their hourly HRV roll-up in the same statement (`CentralHRVRollup`), in series order.
        "beats": "WITH x AS (SELECT t, NULLIF(($6::int4[])[d], 0) AS d, NULLIF(v, 'NaN') AS v, g, s, i"
            + " FROM unnest($1::timestamptz[], $2::int4[], $3::float4[], $4::bool[], $5::uuid[]) WITH ORDINALITY AS x(t, d, v, g, s, i)),"
            + " w AS (INSERT INTO beats (time, device, rr_ms, preceded_by_gap, sample) SELECT t, d, v, g, s FROM x)"
            + " INSERT INTO hrv_hourly (\(CentralHRVRollup.columns), gateway) SELECT z.*, $7::int4 FROM ("
            + CentralHRVRollup.select(from: "x") + ") z",
        // The rows feed their hourly roll-up in the same statement (`CentralRollup`).
        "heart_rate": "WITH x AS (INSERT INTO heart_rate (time, device, bpm, sample, end_time) SELECT t, NULLIF(($7::int4[])[d], 0), v, s, e"
            + " FROM unnest($1::timestamptz[], $2::int4[], $3::float4[], $4::bool[], $5::uuid[], $6::timestamptz[]) AS x(t, d, v, g, s, e)"
            + " RETURNING time, device, bpm, sample, end_time)"
            + " INSERT INTO heart_rate_hourly (\(CentralRollup.columns), gateway) SELECT z.*, $8::int4 FROM ("
            + CentralRollup.select(from: "x") + ") z",
    ]

    @discardableResult
    func query(_ query: PostgresQuery) async throws -> PostgresRowSequence {
        try await connection.query(query, logger: logger)
    }

    /// One upsert per distinct sensor of the batch (a handful), returning the central device ids.
    private func upsertDevices(_ batch: CentralBatch) async throws -> [CentralBatch.DeviceKey: Int32] {
        var ids: [CentralBatch.DeviceKey: Int32] = [:]
        for (key, row) in batch.devices {
            let info = row.info
            let metadata = info.metadata.isEmpty ? nil : CentralBatch.json(info.metadata)
            let rows = try await query("""
                INSERT INTO devices (address, serial, name, manufacturer, model, hardware_version, firmware_version,
                                     software_version, metadata, last_gateway, first_seen, last_seen)
                VALUES (\(key.address), \(key.serial), \(info.name), \(info.manufacturer), \(info.model), \(info.hardwareVersion),
                        \(info.firmwareVersion), \(info.softwareVersion), \(metadata)::jsonb, \(gateway), \(row.firstSeen), \(row.lastSeen))
                ON CONFLICT (address, serial) DO UPDATE SET
                    name = COALESCE(EXCLUDED.name, devices.name), manufacturer = COALESCE(EXCLUDED.manufacturer, devices.manufacturer),
                    model = COALESCE(EXCLUDED.model, devices.model),
                    hardware_version = COALESCE(EXCLUDED.hardware_version, devices.hardware_version),
                    firmware_version = COALESCE(EXCLUDED.firmware_version, devices.firmware_version),
                    software_version = COALESCE(EXCLUDED.software_version, devices.software_version),
                    metadata = COALESCE(EXCLUDED.metadata, devices.metadata), last_gateway = EXCLUDED.last_gateway,
                    first_seen = LEAST(devices.first_seen, EXCLUDED.first_seen),
                    last_seen = GREATEST(devices.last_seen, EXCLUDED.last_seen)
                RETURNING id
                """)
            for try await id in rows.decode(Int32.self) { ids[key] = id }
        }
        return ids
    }

    /// HealthKit's rule, centrally: a sample (or session: `table`) whose sync identifier is stored replaces the
    /// stored one only with a higher version. Returns the UUIDs of the batch to skip.
    func applyVersionRule(_ items: [CentralBatch.Versioned], table: String, report: inout DeliveryReport) async throws -> Set<UUID> {
        var skip = Set<UUID>()
        for item in items {
            var existing: (uuid: UUID, version: Int64)?
            for try await (uuid, version) in try await query(PostgresQuery(
                unsafeSQL: "SELECT uuid, sync_version FROM \(table) WHERE sync_identifier = $1 FOR UPDATE",
                binds: { var b = PostgresBindings(); b.append(item.identifier); return b }())
            ).decode((UUID, Int64?).self) {
                existing = (uuid, version ?? Int64.min)
            }
            guard let existing, existing.uuid != item.uuid else { continue }
            if existing.version >= item.version {
                skip.insert(item.uuid)
                report.staleVersions += 1
            } else {
                report.removed += table == "samples"
                    ? try await removeSamples([existing.uuid]) : try await removeSessions([existing.uuid])
            }
        }
        return skip
    }

    /// Deletes samples and their expanded rows (found through the time index, bounded by each sample's span).
    private func removeSamples(_ uuids: [UUID]) async throws -> Int {
        var gone: [(UUID, Date, Date)] = []
        for try await row in try await query(
            "DELETE FROM samples WHERE uuid = ANY(\(uuids)) RETURNING uuid, start_time, end_time"
        ).decode((UUID, Date, Date).self) {
            gone.append(row)
        }
        for (uuid, start, end) in gone {
            try await query("DELETE FROM beats WHERE time BETWEEN \(start) AND \(end) AND sample = \(uuid)")
            try await query("DELETE FROM heart_rate WHERE time BETWEEN \(start) AND \(end) AND sample = \(uuid)")
            try await query("""
                DELETE FROM heart_rate_hourly WHERE cell BETWEEN date_bin('1 hour', \(start), timestamptz '1970-01-01 00:00:00+00')
                    AND \(end) AND sample = \(uuid)
                """)
            try await query("""
                DELETE FROM hrv_hourly WHERE cell BETWEEN date_bin('1 hour', \(start), timestamptz '1970-01-01 00:00:00+00')
                    AND \(end) AND sample = \(uuid)
                """)
        }
        return gone.count
    }
}
