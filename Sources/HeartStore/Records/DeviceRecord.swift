import Foundation
import GRDB
import HealthModel

/// A row of `devices`: the latest known `DeviceInfo` of one Bluetooth address, and when it was seen.
public struct DeviceRecord: Sendable, Hashable, Codable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "devices"

    public enum Columns {
        public static let id = Column("id")
        public static let address = Column("address")
        public static let name = Column("name")
        public static let manufacturer = Column("manufacturer")
        public static let model = Column("model")
        public static let hardwareVersion = Column("hardwareVersion")
        public static let firmwareVersion = Column("firmwareVersion")
        public static let softwareVersion = Column("softwareVersion")
        public static let udiDeviceIdentifier = Column("udiDeviceIdentifier")
        public static let metadata = Column("metadata")
        public static let firstSeen = Column("firstSeen")
        public static let lastSeen = Column("lastSeen")
    }

    public var id: Int64?
    /// The device as samples report it (`localIdentifier` is the address).
    public var info: DeviceInfo
    public var firstSeen: Date
    public var lastSeen: Date

    public var address: String? { info.localIdentifier }

    public init(id: Int64? = nil, info: DeviceInfo, firstSeen: Date, lastSeen: Date) {
        self.id = id
        self.info = info
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }

    public init(row: Row) throws {
        id = row[Columns.id]
        let metadata: String? = row[Columns.metadata]
        info = DeviceInfo(
            name: row[Columns.name], manufacturer: row[Columns.manufacturer], model: row[Columns.model],
            hardwareVersion: row[Columns.hardwareVersion], firmwareVersion: row[Columns.firmwareVersion],
            softwareVersion: row[Columns.softwareVersion], localIdentifier: row[Columns.address],
            udiDeviceIdentifier: row[Columns.udiDeviceIdentifier], metadata: try StoreCoding.metadata(metadata))
        firstSeen = StoreCoding.date(row[Columns.firstSeen])
        lastSeen = StoreCoding.date(row[Columns.lastSeen])
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.address] = info.localIdentifier
        container[Columns.name] = info.name
        container[Columns.manufacturer] = info.manufacturer
        container[Columns.model] = info.model
        container[Columns.hardwareVersion] = info.hardwareVersion
        container[Columns.firmwareVersion] = info.firmwareVersion
        container[Columns.softwareVersion] = info.softwareVersion
        container[Columns.udiDeviceIdentifier] = info.udiDeviceIdentifier
        container[Columns.metadata] = StoreCoding.json(info.metadata)
        container[Columns.firstSeen] = StoreCoding.seconds(firstSeen)
        container[Columns.lastSeen] = StoreCoding.seconds(lastSeen)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }
}
