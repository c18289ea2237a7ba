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
        if let id = try upsertDeviceByAddress(info, firstSeen: firstSeen, lastSeen: lastSeen, in: db) { return id }
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

    /// The common cases of every save, through cached statements: a device unknown under its address is inserted,
    /// and one stored exactly as `info` describes it only has its seen dates widened. Returns its id; nil when the
    /// device has no address or its row differs from `info`, for the general path. The row's columns are compared
    /// as stored (the metadata as its JSON text, which `StoreCoding.json` writes with sorted keys): decoding the row
    /// (`JSONDecoder` for the metadata) and the record API's UPDATE cost most of a save and brought their code back
    /// into memory with every finished series (docs/BENCHMARKS.md, "Memory"). A row whose metadata text differs
    /// from ours only in form (written otherwise) takes the general path, which compares decoded values.
    static func upsertDeviceByAddress(_ info: DeviceInfo, firstSeen: Date, lastSeen: Date, in db: Database) throws -> Int64? {
        guard let address = info.localIdentifier else { return nil }
        let described = [info.name, info.manufacturer, info.model, info.hardwareVersion, info.firmwareVersion,
                         info.softwareVersion, info.udiDeviceIdentifier, StoreCoding.json(info.metadata)]
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT id, name, manufacturer, model, hardwareVersion, firmwareVersion, softwareVersion,
                udiDeviceIdentifier, metadata, firstSeen, lastSeen FROM devices WHERE address = ?
            """), arguments: [address]) else {
            try db.cachedStatement(sql: """
                INSERT INTO devices (name, manufacturer, model, hardwareVersion, firmwareVersion, softwareVersion,
                    udiDeviceIdentifier, metadata, address, firstSeen, lastSeen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: StatementArguments(described + [address])
                    + [StoreCoding.seconds(firstSeen), StoreCoding.seconds(lastSeen)])
            return db.lastInsertedRowID
        }
        let stored = try (1...8).map { index throws -> String? in try row.decode(atIndex: index) }
        guard stored == described else { return nil }
        let id: Int64 = try row.decode(atIndex: 0)
        let storedFirst: Double = try row.decode(atIndex: 9), storedLast: Double = try row.decode(atIndex: 10)
        let first = min(storedFirst, StoreCoding.seconds(firstSeen)), last = max(storedLast, StoreCoding.seconds(lastSeen))
        if first != storedFirst || last != storedLast {
            try db.cachedStatement(sql: "UPDATE devices SET firstSeen = ?, lastSeen = ? WHERE id = ?")
                .execute(arguments: [first, last, id])
        }
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
