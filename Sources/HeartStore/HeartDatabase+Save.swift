import Foundation
import GRDB
import HealthModel

extension HeartDatabase {
    /// Saves finished samples and deletes the checkpoints they close, in one transaction.
    ///
    /// Sync identifiers: a sample whose metadata has `MetadataKey.syncIdentifier` must carry an integer
    /// `MetadataKey.syncVersion`. It replaces a stored sample with the same identifier only when its version
    /// is higher (the old sample is deleted and leaves a tombstone); otherwise it is skipped. A UUID that is
    /// stored or was deleted is skipped too. Skipped samples do not fail the batch; see `SaveResult`.
    @discardableResult
    public func save(_ samples: [Sample], closingCheckpoints: [UUID] = []) throws(StoreError) -> SaveResult {
        try write { db in
            try Self.save(samples, closingCheckpoints: closingCheckpoints, now: Date(), in: db)
        }
    }

    /// Deletes a sample, leaving a tombstone with a new anchor. Returns false when no such sample exists.
    @discardableResult
    public func delete(uuid: UUID) throws(StoreError) -> Bool {
        try write { db in
            guard let type = try String.fetchOne(
                db, sql: "SELECT type FROM samples WHERE uuid = ?", arguments: [StoreCoding.uuidBlob(uuid)])
            else { return false }
            var anchors = try AnchorSequence(db)
            try Self.tombstone(uuid: uuid, type: type, now: Date(), anchors: &anchors, in: db)
            try anchors.store(db)
            return true
        }
    }

    static func save(_ samples: [Sample], closingCheckpoints: [UUID], now: Date, in db: Database) throws -> SaveResult {
        // Statements are cached: a save runs for every finished series (at high beat rates several a second).
        var anchors = try AnchorSequence(db)
        var result = SaveResult()
        var extents: [String: Double] = [:]
        // One upsert per device and batch (a batch is a device's whole series set), not one per sample.
        var seen: [DeviceInfo: (first: Date, last: Date)] = [:]
        for sample in samples {
            guard let device = sample.device else { continue }
            let span = seen[device]
            seen[device] = (min(span?.first ?? sample.start, sample.start), max(span?.last ?? sample.end, sample.end))
        }
        var deviceIds: [DeviceInfo: Int64] = [:]
        var rowMetadata: [Int64: Metadata] = [:]  // each device row's metadata after the upserts
        for (device, span) in seen {
            let id = try upsertDevice(device, firstSeen: span.first, lastSeen: span.last, in: db)
            deviceIds[device] = id
            rowMetadata[id] = device.metadata
        }
        for sample in samples {
            let uuid = sample.uuid
            let contents: [UInt8]
            do {
                contents = try StoreCoding.encodeContents(sample)
            } catch {
                result.skipped.append(SkippedSample(uuid: uuid, reason: .invalidContents, detail: error.detail))
                continue
            }
            let key = StoreCoding.uuidBlob(uuid)
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM samples WHERE uuid = ?"), arguments: [key]) == true {
                result.skipped.append(SkippedSample(uuid: uuid, reason: .duplicateUUID, detail: "already stored"))
                continue
            }
            if try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM tombstones WHERE uuid = ?"), arguments: [key]) == true {
                result.skipped.append(SkippedSample(uuid: uuid, reason: .deleted, detail: "this UUID was deleted"))
                continue
            }
            if let syncIdentifier = sample.metadata[MetadataKey.syncIdentifier] {
                guard let version = sample.metadata[MetadataKey.syncVersion].flatMap({ Int($0) }) else {
                    result.skipped.append(SkippedSample(
                        uuid: uuid, reason: .invalidSyncVersion,
                        detail: "sync identifier \(syncIdentifier) needs an integer \(MetadataKey.syncVersion)"))
                    continue
                }
                if let row = try Row.fetchOne(
                    db, sql: "SELECT uuid, type, syncVersion FROM samples WHERE syncIdentifier = ?",
                    arguments: [syncIdentifier]) {
                    let existingVersion: Int = try row.decode(forColumn: "syncVersion") ?? Int.min
                    guard version > existingVersion else {
                        result.skipped.append(SkippedSample(
                            uuid: uuid, reason: .staleSyncVersion,
                            detail: "sync identifier \(syncIdentifier) is stored with version \(existingVersion) ≥ \(version)"))
                        continue
                    }
                    let existing = try StoreCoding.uuid(try row.decode(forColumn: "uuid"))
                    try tombstone(uuid: existing, type: try row.decode(forColumn: "type"), now: now, anchors: &anchors, in: db)
                    result.replaced.append(existing)
                }
            }
            let deviceId = sample.device.flatMap { deviceIds[$0] }
            let record = SampleRecord(sample: sample, deviceId: deviceId, deviceMetadata: deviceId.flatMap { rowMetadata[$0] },
                                      anchor: anchors.next(), contents: contents)
            try record.insert(db)
            if record.type == QuantityType.heartRate.identifier {
                try HeartRateRollup.insert(sample: StoreCoding.uuidBlob(uuid), deviceId: deviceId, seriesStart: record.start,
                                           contents: contents, in: db)
            } else if record.type == Sample.heartbeatSeriesIdentifier {
                try HeartbeatRollup.insert(sample: StoreCoding.uuidBlob(uuid), seriesStart: record.start, contents: contents, in: db)
            }
            result.saved.append(uuid)
            let duration = sample.end.timeIntervalSince(sample.start)
            extents[record.type] = max(extents[record.type] ?? 0, duration)
        }
        for (type, duration) in extents {
            try db.cachedStatement(sql: """
                INSERT INTO type_extent (type, maxDuration) VALUES (?, ?)
                ON CONFLICT (type) DO UPDATE SET maxDuration = MAX(maxDuration, excluded.maxDuration)
                """).execute(arguments: [type, duration])
        }
        try deleteCheckpoints(closingCheckpoints, in: db)
        try anchors.store(db)
        return result
    }

    static func tombstone(uuid: UUID, type: String, now: Date, anchors: inout AnchorSequence, in db: Database) throws {
        let key = StoreCoding.uuidBlob(uuid)
        try db.execute(sql: "DELETE FROM samples WHERE uuid = ?", arguments: [key])
        if type == QuantityType.heartRate.identifier { try HeartRateRollup.delete(sample: key, in: db) }
        if type == Sample.heartbeatSeriesIdentifier { try HeartbeatRollup.delete(sample: key, in: db) }
        try TombstoneRecord(uuid: uuid, type: type, deletedAt: now, anchor: anchors.next()).insert(db)
    }
}
