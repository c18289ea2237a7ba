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
        func text(_ column: Column) throws -> String? { try row.decode(forColumn: column) }
        id = try row.decode(forColumn: Columns.id)
        info = DeviceInfo(
            name: try text(Columns.name), manufacturer: try text(Columns.manufacturer), model: try text(Columns.model),
            hardwareVersion: try text(Columns.hardwareVersion), firmwareVersion: try text(Columns.firmwareVersion),
            softwareVersion: try text(Columns.softwareVersion), localIdentifier: try text(Columns.address),
            udiDeviceIdentifier: try text(Columns.udiDeviceIdentifier),
            metadata: try StoreCoding.metadata(try text(Columns.metadata)))
        firstSeen = StoreCoding.date(try row.decode(forColumn: Columns.firstSeen))
        lastSeen = StoreCoding.date(try row.decode(forColumn: Columns.lastSeen))
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
