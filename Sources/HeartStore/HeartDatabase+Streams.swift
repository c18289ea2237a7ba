import Foundation
import GRDB
import HealthModel

/// Range reads that hold one stored sample at a time: a GRDB cursor walks the rows in start order and each row's
/// series is decoded, handed to the caller and dropped before the next, so a read's memory is one sample's, not the
/// range's, however many months it spans. The whole walk is one read transaction (one consistent snapshot).
extension HeartDatabase {
    /// Calls `body` with each heartbeat series overlapping [from, to), in start order. `device` is a Bluetooth
    /// address; `metadata` what the series' own metadata must hold.
    public func forEachHeartbeatSeries(from: Date, to: Date, device: String? = nil, metadata: MetadataPredicate = [:],
                                       _ body: (HeartbeatSeriesSample) -> Void) throws(StoreError) {
        try read { db in
            guard let filter = try RangeFilter(type: Sample.heartbeatSeriesIdentifier, device: device, from: from, to: to,
                                               metadata: metadata, in: db) else { return }
            var infos: [Int64: DeviceInfo] = [:]
            let cursor = try SampleRecord.fetchCursor(
                db, sql: "SELECT * FROM samples WHERE \(filter.sql) ORDER BY startDate", arguments: filter.arguments)
            while let record = try cursor.next() {
                if let id = record.deviceId, record.deviceSnapshot == nil, infos[id] == nil {
                    infos.merge(try Self.deviceInfos(ids: [id], in: db)) { a, _ in a }
                }
                if case .heartbeatSeries(let series) = try record.sample(device: try Self.device(of: record, infos: infos)) {
                    body(series)
                }
            }
        }
    }

    /// Calls `body` with each point of every sample of `type` overlapping [from, to) that itself overlaps the range
    /// (an instant point at `from` counts): samples in start order, each sample's points in its own order.
    public func forEachQuantityPoint(type: QuantityType, from: Date, to: Date, device: String? = nil,
                                     metadata: MetadataPredicate = [:], _ body: (QuantityPoint) -> Void) throws(StoreError) {
        try read { db in try Self.forEachQuantityPoint(type: type, from: from, to: to, device: device, metadata: metadata, in: db, body) }
    }

    /// `forEachQuantityPoint` inside a read the caller holds (`heartRateRollup` streams its edges in its own read).
    static func forEachQuantityPoint(type: QuantityType, from: Date, to: Date, device: String?, metadata: MetadataPredicate,
                                     in db: Database, _ body: (QuantityPoint) -> Void) throws {
        guard let filter = try RangeFilter(type: type.identifier, device: device, from: from, to: to,
                                           metadata: metadata, in: db) else { return }
        let cursor = try Row.fetchCursor(
            db, sql: "SELECT startDate, contents FROM samples WHERE \(filter.sql) ORDER BY startDate",
            arguments: filter.arguments)
        while let row = try cursor.next() {
            let start = StoreCoding.date(try row.decode(atIndex: 0) as Double)
            let points: [QuantityPoint]
            do {
                points = try row.withUnsafeData(atIndex: 1) { data in
                    try QuantitySeriesCoding.decode(data.map { [UInt8]($0) } ?? [], seriesStart: start)
                }
            } catch let error as SeriesCodingError {
                throw StoreError(.corruptBlob, "quantity series at \(start): \(error)")
            }
            for point in points where point.start < to && point.end >= from { body(point) }
        }
    }
}
