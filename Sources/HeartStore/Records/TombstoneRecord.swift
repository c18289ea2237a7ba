import Foundation
import GRDB

/// A row of `tombstones`: a deleted sample, kept so anchored change queries can report the deletion.
struct TombstoneRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "tombstones"

    enum Columns {
        static let uuid = Column("uuid")
        static let type = Column("type")
        static let deletedAt = Column("deletedAt")
        static let anchor = Column("anchor")
    }

    var uuid: UUID
    var type: String
    var deletedAt: Date
    var anchor: Int64

    init(uuid: UUID, type: String, deletedAt: Date, anchor: Int64) {
        self.uuid = uuid
        self.type = type
        self.deletedAt = deletedAt
        self.anchor = anchor
    }

    init(row: Row) throws {
        uuid = try StoreCoding.uuid(try row.decode(forColumn: Columns.uuid))
        type = try row.decode(forColumn: Columns.type)
        deletedAt = StoreCoding.date(try row.decode(forColumn: Columns.deletedAt))
        anchor = try row.decode(forColumn: Columns.anchor)
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.uuid] = StoreCoding.uuidBlob(uuid)
        container[Columns.type] = type
        container[Columns.deletedAt] = StoreCoding.seconds(deletedAt)
        container[Columns.anchor] = anchor
    }
}
