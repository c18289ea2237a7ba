import Foundation
import GRDB
import HealthModel

extension HeartDatabase {
    /// Records a device by its address (`localIdentifier`): inserts it, or updates the row to this info and
    /// widens its first/last seen dates. Samples saved with the previous info keep that info.
    /// Devices without an address are matched on all their fields. Returns the device id.
    @discardableResult
    public func upsertDevice(_ info: DeviceInfo, seenAt: Date = Date()) throws(StoreError) -> Int64 {
        try write { db in try Self.upsertDevice(info, firstSeen: seenAt, lastSeen: seenAt, in: db) }
    }

    /// Every known device, by address.
    public func devices() throws(StoreError) -> [DeviceRecord] {
        try read { db in
            try DeviceRecord.order(DeviceRecord.Columns.address, DeviceRecord.Columns.id).fetchAll(db)
        }
    }

    static func upsertDevice(_ info: DeviceInfo, firstSeen: Date, lastSeen: Date, in db: Database) throws -> Int64 {
        let existing: DeviceRecord?
        if let address = info.localIdentifier {
            // A cached statement: this runs with every save of finished series.
            existing = try DeviceRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM devices WHERE address = ?"),
                                                 arguments: [address])
        } else {
            existing = try DeviceRecord.filter(DeviceRecord.Columns.address == nil).fetchAll(db)
                .first { $0.info == info }
        }
        guard var record = existing, let id = record.id else {
            var record = DeviceRecord(info: info, firstSeen: firstSeen, lastSeen: lastSeen)
            try record.insert(db)
            return record.id ?? db.lastInsertedRowID
        }
        var changed = false
        if record.info != info {
            // Samples that relied on the row keep the info they were saved with.
            try db.execute(
                sql: "UPDATE samples SET deviceSnapshot = ? WHERE deviceId = ? AND deviceSnapshot IS NULL",
                arguments: [StoreCoding.json(record.info), id])
            record.info = info
            changed = true
        }
        if firstSeen < record.firstSeen { record.firstSeen = firstSeen; changed = true }
        if lastSeen > record.lastSeen { record.lastSeen = lastSeen; changed = true }
        if changed { try record.update(db) }
        return id
    }

    /// The device of each device id, for building samples and summaries.
    static func deviceInfos(ids: some Sequence<Int64>, in db: Database) throws -> [Int64: DeviceInfo] {
        let unique = Array(Set(ids))
        guard !unique.isEmpty else { return [:] }
        var result: [Int64: DeviceInfo] = [:]
        for record in try DeviceRecord.filter(keys: unique).fetchAll(db) {
            if let id = record.id { result[id] = record.info }
        }
        return result
    }

    /// The device id of an address, or nil when unknown.
    static func deviceId(address: String, in db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM devices WHERE address = ?", arguments: [address])
    }
}
