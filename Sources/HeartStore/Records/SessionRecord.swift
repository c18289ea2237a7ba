import Foundation
import GRDB
import HealthModel

/// A row of `sessions`, read and written as a `Session`.
struct SessionRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "sessions"

    var session: Session

    init(_ session: Session) {
        self.session = session
    }

    init(row: Row) throws {
        let devices: String = try row.decode(forColumn: "devices")
        let statistics: String? = try row.decode(forColumn: "statistics")
        let end: Double? = try row.decode(forColumn: "endDate")
        session = Session(
            uuid: try StoreCoding.uuid(try row.decode(forColumn: "uuid")),
            label: try row.decode(forColumn: "label"),
            start: StoreCoding.date(try row.decode(forColumn: "startDate")),
            end: end.map(StoreCoding.date),
            devices: try Self.decode([String].self, devices),
            metadata: try StoreCoding.metadata(try row.decode(forColumn: "metadata")),
            statistics: try statistics.map { json throws(StoreError) in try Self.decode(SessionStatistics.self, json) },
            anchor: try row.decode(forColumn: "anchor"))
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["uuid"] = StoreCoding.uuidBlob(session.uuid)
        container["label"] = session.label
        container["startDate"] = StoreCoding.seconds(session.start)
        container["endDate"] = session.end.map(StoreCoding.seconds)
        container["devices"] = try Self.encode(session.devices)
        container["metadata"] = StoreCoding.json(session.metadata)
        container["syncIdentifier"] = session.metadata[MetadataKey.syncIdentifier]
        container["syncVersion"] = session.metadata[MetadataKey.syncVersion].flatMap { Int($0) }
        container["statistics"] = try session.statistics.map(Self.encode)
        container["anchor"] = session.anchor
    }

    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, _ json: String) throws(StoreError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(json.utf8))
        } catch {
            throw StoreError(.corruptBlob, "session \(T.self) JSON cannot be decoded: \(error)")
        }
    }
}
