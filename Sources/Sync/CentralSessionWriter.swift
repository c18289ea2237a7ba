import Foundation
import HealthModel
import PostgresNIO

/// Sessions in a batch's transaction: the sync-identifier rule, then one upsert per session (a batch holds few;
/// a session's stop replaces the row its start wrote, never the other way round: the higher anchor wins).
extension CentralBatchWriter {
    func writeSessions(_ batch: CentralBatch, report: inout DeliveryReport) async throws {
        guard !batch.sessions.isEmpty else { return }
        let versioned = batch.sessions.compactMap { CentralBatch.versioned($0.uuid, $0.metadata) }
        let stale = try await applyVersionRule(versioned, table: "sessions", report: &report)
        for session in batch.sessions where !stale.contains(session.uuid) {
            let metadata = session.metadata.isEmpty ? nil : CentralBatch.json(session.metadata)
            let statistics = session.statistics.map(CentralBatch.json)
            let version = session.metadata[MetadataKey.syncVersion].flatMap { Int64($0) }
            try await query("""
                INSERT INTO sessions (uuid, gateway, label, start_time, end_time, devices, metadata, statistics,
                                      sync_identifier, sync_version, anchor)
                VALUES (\(session.uuid), \(gateway), \(session.label), \(session.start), \(session.end), \(session.devices),
                        \(metadata)::jsonb, \(statistics)::jsonb, \(session.metadata[MetadataKey.syncIdentifier]), \(version),
                        \(session.anchor ?? 0))
                ON CONFLICT (uuid) DO UPDATE SET label = EXCLUDED.label, start_time = EXCLUDED.start_time,
                    end_time = EXCLUDED.end_time, devices = EXCLUDED.devices, metadata = EXCLUDED.metadata,
                    statistics = EXCLUDED.statistics, sync_identifier = EXCLUDED.sync_identifier,
                    sync_version = EXCLUDED.sync_version, anchor = EXCLUDED.anchor, delivered_at = now()
                WHERE sessions.gateway = EXCLUDED.gateway AND sessions.anchor < EXCLUDED.anchor
                """)
            report.sessions += 1
        }
    }

    /// Deletes central sessions (a tombstone's UUID may be a sample's: then nothing matches here).
    func removeSessions(_ uuids: [UUID]) async throws -> Int {
        var count = 0
        for try await _ in try await query("DELETE FROM sessions WHERE uuid = ANY(\(uuids)) RETURNING uuid").decode(UUID.self) {
            count += 1
        }
        return count
    }
}
