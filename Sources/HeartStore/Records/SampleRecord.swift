import Foundation
import GRDB
import HealthModel

/// A row of `samples`: one finished sample with its aggregates and its encoded series.
struct SampleRecord: Sendable, FetchableRecord {
    enum Columns {
        static let uuid = Column("uuid")
        static let type = Column("type")
        static let startDate = Column("startDate")
        static let endDate = Column("endDate")
        static let count = Column("count")
        static let average = Column("average")
        static let minimum = Column("minimum")
        static let maximum = Column("maximum")
        static let mostRecent = Column("mostRecent")
        static let sum = Column("sum")
        static let deviceId = Column("deviceId")
        static let deviceSnapshot = Column("deviceSnapshot")
        static let metadata = Column("metadata")
        static let syncIdentifier = Column("syncIdentifier")
        static let syncVersion = Column("syncVersion")
        static let anchor = Column("anchor")
        static let contents = Column("contents")
        static let inheritsDeviceMetadata = Column("inheritsDeviceMetadata")
    }

    /// Every column but `contents`, for summaries.
    static let summaryColumns = "uuid, type, startDate, endDate, count, average, minimum, maximum, mostRecent, sum, "
        + "deviceId, deviceSnapshot, metadata, inheritsDeviceMetadata, anchor"

    var uuid: UUID
    var type: String
    var start: Date
    var end: Date
    var count: Int
    var aggregates: QuantityAggregates
    var deviceId: Int64?
    var deviceSnapshot: String?
    /// The sample's own metadata: without its device's keys when `inheritsDeviceMetadata` (`fullMetadata`).
    var metadata: Metadata
    var inheritsDeviceMetadata: Bool
    var syncIdentifier: String?
    var syncVersion: Int?
    var anchor: Int64
    var contents: [UInt8]

    /// - Parameter deviceMetadata: the metadata of the device row `deviceId` points to after this save; when it
    ///   is the sample's device's and every key of it is in the sample's metadata with the same value, those
    ///   keys are left out of the row and read back from the device (`fullMetadata`).
    init(sample: Sample, deviceId: Int64?, deviceMetadata: Metadata? = nil, anchor: Int64, contents: [UInt8]) {
        uuid = sample.uuid
        type = sample.typeIdentifier
        start = sample.start
        end = sample.end
        switch sample {
        case .quantity(let q):
            count = q.points.count
            aggregates = q.aggregates
        case .heartbeatSeries(let h):
            count = h.beats.count
            aggregates = QuantityAggregates()
        }
        self.deviceId = deviceId
        deviceSnapshot = nil
        metadata = sample.metadata
        inheritsDeviceMetadata = false
        if let deviceMetadata, !deviceMetadata.isEmpty, deviceId != nil, sample.device?.metadata == deviceMetadata,
           deviceMetadata.allSatisfy({ sample.metadata[$0.key] == $0.value }) {
            for key in deviceMetadata.keys { metadata[key] = nil }
            inheritsDeviceMetadata = true
        }
        syncIdentifier = sample.metadata[MetadataKey.syncIdentifier]
        syncVersion = sample.metadata[MetadataKey.syncVersion].flatMap { Int($0) }
        self.anchor = anchor
        self.contents = contents
    }

    init(row: Row) throws {
        uuid = try StoreCoding.uuid(try row.decode(forColumn: Columns.uuid))
        type = try row.decode(forColumn: Columns.type)
        start = StoreCoding.date(try row.decode(forColumn: Columns.startDate))
        end = StoreCoding.date(try row.decode(forColumn: Columns.endDate))
        count = try row.decode(forColumn: Columns.count)
        func real(_ column: Column) throws -> Double? { try row.decode(forColumn: column) }
        aggregates = QuantityAggregates(
            average: try real(Columns.average), minimum: try real(Columns.minimum), maximum: try real(Columns.maximum),
            mostRecent: try real(Columns.mostRecent), sum: try real(Columns.sum))
        deviceId = try row.decode(forColumn: Columns.deviceId)
        deviceSnapshot = try row.decode(forColumn: Columns.deviceSnapshot)
        metadata = try StoreCoding.metadata(try row.decode(forColumn: Columns.metadata))
        inheritsDeviceMetadata = try row.decode(forColumn: Columns.inheritsDeviceMetadata)
        syncIdentifier = metadata[MetadataKey.syncIdentifier]
        syncVersion = metadata[MetadataKey.syncVersion].flatMap { Int($0) }
        anchor = try row.decode(forColumn: Columns.anchor)
        contents = try row.withUnsafeData(named: "contents") { $0.map { [UInt8]($0) } ?? [] }
    }

    /// A row of `SELECT \(summaryColumns)`, read by position: `init(row:)` looks every column up by name (a
    /// dictionary search each), a tenth of the CPU of a year's listing (`heartctl series --all`).
    init(summaryRow row: Row) throws {
        uuid = try StoreCoding.uuid(try row.decode(atIndex: 0))
        type = try row.decode(atIndex: 1)
        start = StoreCoding.date(try row.decode(atIndex: 2))
        end = StoreCoding.date(try row.decode(atIndex: 3))
        count = try row.decode(atIndex: 4)
        func real(_ index: Int) throws -> Double? { try row.decode(atIndex: index) }
        aggregates = QuantityAggregates(average: try real(5), minimum: try real(6), maximum: try real(7),
                                        mostRecent: try real(8), sum: try real(9))
        deviceId = try row.decode(atIndex: 10)
        deviceSnapshot = try row.decode(atIndex: 11)
        metadata = try StoreCoding.metadata(try row.decode(atIndex: 12))
        inheritsDeviceMetadata = try row.decode(atIndex: 13)
        syncIdentifier = metadata[MetadataKey.syncIdentifier]
        syncVersion = metadata[MetadataKey.syncVersion].flatMap { Int($0) }
        anchor = try row.decode(atIndex: 14)
        contents = []
    }

    /// Inserts the row through one cached statement. Not the record API: it builds its INSERT from the table's
    /// schema at every call (~190 k instructions a sample), code that the save of each finished series would bring
    /// back into memory for nothing else (docs/BENCHMARKS.md, "Memory").
    func insert(_ db: Database) throws {
        try db.cachedStatement(sql: """
            INSERT INTO samples (uuid, type, startDate, endDate, count, average, minimum, maximum, mostRecent, sum,
                deviceId, deviceSnapshot, metadata, inheritsDeviceMetadata, syncIdentifier, syncVersion, anchor, contents)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                StoreCoding.uuidBlob(uuid), type, StoreCoding.seconds(start), StoreCoding.seconds(end), count,
                aggregates.average, aggregates.minimum, aggregates.maximum, aggregates.mostRecent, aggregates.sum,
                deviceId, deviceSnapshot, StoreCoding.json(metadata), inheritsDeviceMetadata, syncIdentifier,
                syncVersion, anchor, Data(contents),
            ])
    }

    /// The sample's whole metadata, given the device it was recorded with (the row's snapshot, else its device
    /// row: the device the row was saved against, see `HeartDatabase.upsertDevice`).
    func fullMetadata(device: DeviceInfo?) -> Metadata {
        guard inheritsDeviceMetadata, let device else { return metadata }
        return metadata.merging(device.metadata) { own, _ in own }
    }

    /// The full sample, given the device it was recorded with.
    func sample(device: DeviceInfo?) throws(StoreError) -> Sample {
        let metadata = fullMetadata(device: device)
        do {
            if type == Sample.heartbeatSeriesIdentifier {
                return .heartbeatSeries(HeartbeatSeriesSample(
                    uuid: uuid, start: start, end: end, beats: try HeartbeatSeriesCoding.decode(contents),
                    device: device, metadata: metadata))
            }
            let quantityType = try StoreCoding.quantityType(type)
            return .quantity(QuantitySample(
                uuid: uuid, type: quantityType, start: start, end: end,
                points: try QuantitySeriesCoding.decode(contents, seriesStart: start),
                aggregates: aggregates, device: device, metadata: metadata))
        } catch let error as SeriesCodingError {
            throw StoreError(.corruptBlob, "sample \(uuid): \(error)")
        } catch {
            throw StoreError.wrap(error)
        }
    }
}
