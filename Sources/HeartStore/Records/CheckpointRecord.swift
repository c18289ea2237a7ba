import Foundation
import GRDB
import HealthModel

/// A row of `open_series`: the journaled state of a series that is still being built.
struct CheckpointRecord: Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "open_series"

    enum Columns {
        static let uuid = Column("uuid")
        static let deviceAddress = Column("deviceAddress")
        static let kind = Column("kind")
        static let startDate = Column("startDate")
        static let endDate = Column("endDate")
        static let contents = Column("contents")
        static let metadata = Column("metadata")
        static let device = Column("device")
        static let updatedAt = Column("updatedAt")
    }

    var uuid: UUID
    var kind: String
    var start: Date
    var end: Date
    var contents: [UInt8]
    var metadata: Metadata
    var device: DeviceInfo?
    var updatedAt: Date

    init(sample: Sample, updatedAt: Date) throws(StoreError) {
        uuid = sample.uuid
        kind = sample.typeIdentifier
        start = sample.start
        end = sample.end
        contents = try StoreCoding.encodeContents(sample)
        metadata = sample.metadata
        device = sample.device
        self.updatedAt = updatedAt
    }

    init(uuid: UUID, kind: String, start: Date, end: Date, contents: [UInt8], metadata: Metadata,
         device: DeviceInfo?, updatedAt: Date) {
        self.uuid = uuid
        self.kind = kind
        self.start = start
        self.end = end
        self.contents = contents
        self.metadata = metadata
        self.device = device
        self.updatedAt = updatedAt
    }

    init(row: Row) throws {
        uuid = try StoreCoding.uuid(try row.decode(forColumn: Columns.uuid))
        kind = try row.decode(forColumn: Columns.kind)
        start = StoreCoding.date(try row.decode(forColumn: Columns.startDate))
        end = StoreCoding.date(try row.decode(forColumn: Columns.endDate))
        contents = try row.withUnsafeData(named: "contents") { $0.map { [UInt8]($0) } ?? [] }
        metadata = try StoreCoding.metadata(try row.decode(forColumn: Columns.metadata))
        let deviceJSON: String? = try row.decode(forColumn: Columns.device)
        device = try deviceJSON.map { json throws(StoreError) in try StoreCoding.device(json) }
        updatedAt = StoreCoding.date(try row.decode(forColumn: Columns.updatedAt))
    }

    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.uuid] = StoreCoding.uuidBlob(uuid)
        container[Columns.deviceAddress] = device?.localIdentifier
        container[Columns.kind] = kind
        container[Columns.startDate] = StoreCoding.seconds(start)
        container[Columns.endDate] = StoreCoding.seconds(end)
        container[Columns.contents] = Data(contents)
        container[Columns.metadata] = StoreCoding.json(metadata)
        container[Columns.device] = device.map(StoreCoding.json)
        container[Columns.updatedAt] = StoreCoding.seconds(updatedAt)
    }

    /// Inserts or replaces the row with one cached statement. GRDB's generic `upsert` spent most of the
    /// checkpoint time building its statement; checkpoints run every second for every open series.
    func replace(in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO open_series (uuid, deviceAddress, kind, startDate, endDate, contents, metadata, device, updatedAt)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        try statement.execute(arguments: [
            StoreCoding.uuidBlob(uuid), device?.localIdentifier, kind, StoreCoding.seconds(start), StoreCoding.seconds(end),
            Data(contents), StoreCoding.json(metadata), device.map(StoreCoding.json), StoreCoding.seconds(updatedAt),
        ])
    }

    /// This checkpoint with `append` applied (its items decoded, changed and encoded again), and its item count.
    /// Throws `.conflict` when the change does not follow it (another item count or kind).
    func applying(_ append: SeriesAppend, updatedAt: Date) throws(StoreError) -> (record: CheckpointRecord, count: Int) {
        var items: SeriesItems
        do {
            items = try SeriesItems.decode(contents, kind: kind, start: start)
        } catch {
            throw StoreError(.corruptBlob, "checkpoint \(uuid): \(error)")
        }
        guard items.count == append.after, items.replaceTail(keeping: append.keeping, with: append.items) else {
            throw StoreError(.conflict, "checkpoint \(uuid) holds \(items.count) items of \(kind): the change follows "
                             + "\(append.after)")
        }
        var record = self
        do {
            record.contents = try items.encoded(seriesStart: start)
        } catch {
            throw StoreError(.invalidSample, "checkpoint \(uuid) cannot be encoded: \(error)")
        }
        record.end = append.end
        record.updatedAt = updatedAt
        return (record, items.count)
    }

    /// The open series as a sample, with aggregates computed from its points.
    func sample() throws(StoreError) -> Sample {
        do {
            if kind == Sample.heartbeatSeriesIdentifier {
                return .heartbeatSeries(HeartbeatSeriesSample(
                    uuid: uuid, start: start, end: end, beats: try HeartbeatSeriesCoding.decode(contents),
                    device: device, metadata: metadata))
            }
            let type = try StoreCoding.quantityType(kind)
            let points = try QuantitySeriesCoding.decode(contents, seriesStart: start)
            return .quantity(QuantitySample(
                uuid: uuid, type: type, start: start, end: end, points: points,
                aggregates: QuantityAggregates(points: points, style: type.aggregation),
                device: device, metadata: metadata))
        } catch let error as SeriesCodingError {
            throw StoreError(.corruptBlob, "checkpoint \(uuid): \(error)")
        } catch {
            throw StoreError.wrap(error)
        }
    }
}
