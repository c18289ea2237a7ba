import Foundation
import GRDB
import HealthModel

extension HeartDatabase {
    /// Summaries of the samples that overlap `[from, to)` (an instant sample at `from` counts), ordered by start
    /// (latest first with `newestFirst`, so `limit` keeps the most recent ones).
    /// Each filter is optional: `type` is a type identifier, `device` a Bluetooth address, `metadata` what a sample's
    /// own metadata must hold (`MetadataPredicate`; e.g. `HeartdSession` = a session's UUID).
    public func samples(type: String? = nil, device: String? = nil, from: Date? = nil, to: Date? = nil,
                        metadata: MetadataPredicate = [:], limit: Int? = nil,
                        newestFirst: Bool = false) throws(StoreError) -> [SampleSummary] {
        try samplePage(type: type, device: device, from: from, to: to, metadata: metadata, limit: limit,
                       newestFirst: newestFirst).samples
    }

    /// One page of `samples`: at most `limit` summaries after `after` (the `next` of the previous page) in the
    /// page's order — start, then anchor, so samples with equal starts page without loss or repeat — and the
    /// cursor of the page that follows (nil on the last page). Each page is one indexed seek, however deep.
    public func samplePage(type: String? = nil, device: String? = nil, from: Date? = nil, to: Date? = nil,
                           metadata: MetadataPredicate = [:], limit: Int? = nil, newestFirst: Bool = false,
                           after: SamplePageCursor? = nil) throws(StoreError) -> SamplePage {
        try read { db in
            guard let (sql, arguments) = try Self.pageQuery(type: type, device: device, from: from, to: to, metadata: metadata,
                                                            limit: limit, newestFirst: newestFirst, after: after, in: db)
            else { return SamplePage(samples: [], next: nil) }
            var records: [SampleRecord] = []
            let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
            while let row = try rows.next() { records.append(try SampleRecord(summaryRow: row)) }
            var next: SamplePageCursor?
            if let limit, records.count > max(limit, 0) {
                records.removeLast(records.count - max(limit, 0))
                next = records.last.map { SamplePageCursor(startSeconds: StoreCoding.seconds($0.start), anchor: $0.anchor) }
                    ?? after
            }
            return SamplePage(samples: try Self.summaries(records, in: db), next: next)
        }
    }

    /// The SQL of one page of `samplePage` (nil: nothing can match). The cursor's start is also the bound of the index
    /// range (`RangeFilter`'s `resumingAt`), so a deep page never walks the rows from the range's start to the cursor
    /// whatever the planner makes of the OR that breaks ties (`StorePagingTests` holds a deep page to the first's cost).
    static func pageQuery(type: String?, device: String?, from: Date?, to: Date?, metadata: MetadataPredicate,
                          limit: Int?, newestFirst: Bool, after: SamplePageCursor?,
                          in db: Database) throws -> (String, StatementArguments)? {
        guard let filter = try RangeFilter(type: type, device: device, from: from, to: to, metadata: metadata,
                                           resumingAt: after.map { ($0.startSeconds, newestFirst) }, in: db)
        else { return nil }
        var sql = "SELECT \(SampleRecord.summaryColumns) FROM samples WHERE \(filter.sql)"
        var arguments = filter.arguments
        if let after {
            sql += newestFirst ? " AND (startDate < ? OR (startDate = ? AND anchor < ?))"
                : " AND (startDate > ? OR (startDate = ? AND anchor > ?))"
            arguments += [after.startSeconds, after.startSeconds, after.anchor]
        }
        sql += newestFirst ? " ORDER BY startDate DESC, anchor DESC" : " ORDER BY startDate, anchor"
        if let limit {
            sql += " LIMIT ?"
            arguments += [max(limit, 0) + 1]
        }
        return (sql, arguments)
    }

    /// The full sample, or nil when no sample has this UUID.
    public func sample(uuid: UUID) throws(StoreError) -> Sample? {
        let found: (SampleRecord, DeviceInfo?)? = try read { db in
            guard let record = try SampleRecord.fetchOne(
                db, sql: "SELECT * FROM samples WHERE uuid = ?", arguments: [StoreCoding.uuidBlob(uuid)])
            else { return nil }
            return (record, try Self.device(of: record, in: db))
        }
        guard let (record, device) = found else { return nil }
        return try record.sample(device: device)
    }

    /// The beats of a heartbeat series, or nil when no heartbeat series has this UUID.
    public func beats(uuid: UUID) throws(StoreError) -> [Beat]? {
        let blob: [UInt8]? = try read { db in
            try Row.fetchOne(
                db, sql: "SELECT contents FROM samples WHERE uuid = ? AND type = ?",
                arguments: [StoreCoding.uuidBlob(uuid), Sample.heartbeatSeriesIdentifier]
            ).map { row in try row.withUnsafeData(atIndex: 0) { $0.map { [UInt8]($0) } ?? [] } }
        }
        guard let blob else { return nil }
        do {
            return try HeartbeatSeriesCoding.decode(blob)
        } catch {
            throw StoreError(.corruptBlob, "heartbeat series \(uuid): \(error)")
        }
    }

    /// The full heartbeat series overlapping `[from, to)`, ordered by start (one read for a whole day; a longer
    /// range reads with `forEachHeartbeatSeries`, one series at a time).
    public func heartbeatSeries(from: Date, to: Date, device: String? = nil,
                                metadata: MetadataPredicate = [:]) throws(StoreError) -> [HeartbeatSeriesSample] {
        var result: [HeartbeatSeriesSample] = []
        try forEachHeartbeatSeries(from: from, to: to, device: device, metadata: metadata) { result.append($0) }
        return result
    }

    /// The points of every sample of `type` that overlap `[from, to)`, limited to points overlapping the range
    /// (an instant point at `from` counts), in start order. `device` is a Bluetooth address; `metadata` what the
    /// samples' own metadata must hold. A long range reads with `forEachQuantityPoint` instead.
    public func quantities(type: QuantityType, from: Date, to: Date, device: String? = nil,
                           metadata: MetadataPredicate = [:]) throws(StoreError) -> [QuantityPoint] {
        var points: [QuantityPoint] = []
        var sorted = true
        try forEachQuantityPoint(type: type, from: from, to: to, device: device, metadata: metadata) { point in
            if let last = points.last, point.start < last.start { sorted = false }
            points.append(point)
        }
        if !sorted { points.sort { $0.start < $1.start } }
        return points
    }

    static func summaries(_ records: [SampleRecord], in db: Database) throws -> [SampleSummary] {
        let infos = try deviceInfos(ids: records.compactMap(\.deviceId), in: db)
        return try records.map { record in
            let device = try device(of: record, infos: infos)
            return SampleSummary(
                uuid: record.uuid, typeIdentifier: record.type, start: record.start, end: record.end,
                count: record.count, aggregates: record.aggregates, device: device,
                metadata: record.fullMetadata(device: device), anchor: record.anchor)
        }
    }

    static func device(of record: SampleRecord, in db: Database) throws -> DeviceInfo? {
        guard let id = record.deviceId else { return nil }
        return try device(of: record, infos: deviceInfos(ids: [id], in: db))
    }

    static func device(of record: SampleRecord, infos: [Int64: DeviceInfo]) throws(StoreError) -> DeviceInfo? {
        if let snapshot = record.deviceSnapshot { return try StoreCoding.device(snapshot) }
        return record.deviceId.flatMap { infos[$0] }
    }
}

/// The WHERE clause of a range query. The lower bound on `startDate` (from − the longest sample of the type)
/// keeps the scan of the (type, startDate) index short however much history there is.
struct RangeFilter {
    var sql: String
    var arguments: StatementArguments

    /// Nil when the device is unknown (nothing can match).
    /// `resumingAt`: a page's cursor — the start it resumes at and whether pages go newest first; the bound on
    /// `startDate` it sets (at least / at most that start) is the one the index range takes.
    init?(type: String?, device: String?, from: Date?, to: Date?, metadata: MetadataPredicate = [:],
          resumingAt: (start: Double, newestFirst: Bool)? = nil, in db: Database) throws {
        var clauses: [String] = []
        arguments = []
        if let type {
            clauses.append("type = ?")
            arguments += [type]
        }
        if let device {
            guard let id = try HeartDatabase.deviceId(address: device, in: db) else { return nil }
            clauses.append("deviceId = ?")
            arguments += [id]
        }
        if let from {
            let longest: Double?
            if let type {
                longest = try Double.fetchOne(db, sql: "SELECT maxDuration FROM type_extent WHERE type = ?", arguments: [type])
            } else {
                longest = try Double.fetchOne(db, sql: "SELECT MAX(maxDuration) FROM type_extent")
            }
            var lowest = StoreCoding.seconds(from) - (longest ?? 0)
            if let resume = resumingAt, !resume.newestFirst { lowest = max(lowest, resume.start) }
            clauses.append("startDate >= ? AND endDate >= ?")
            arguments += [lowest, StoreCoding.seconds(from)]
        } else if let resume = resumingAt, !resume.newestFirst {
            clauses.append("startDate >= ?")
            arguments += [resume.start]
        }
        if let resume = resumingAt, resume.newestFirst, to.map({ resume.start < StoreCoding.seconds($0) }) ?? true {
            clauses.append("startDate <= ?")
            arguments += [resume.start]
        } else if let to {
            clauses.append("startDate < ?")
            arguments += [StoreCoding.seconds(to)]
        }
        let (metadataSQL, metadataArguments) = metadata.sqlClauses(column: "samples.metadata")
        clauses += metadataSQL
        arguments += metadataArguments
        sql = clauses.isEmpty ? "1" : clauses.joined(separator: " AND ")
    }
}

extension MetadataPredicate {
    /// One SQL condition per key on a JSON metadata column: the key holds one of its allowed values. `json_each`
    /// rather than a JSON path: any key works, quotes and dots included.
    func sqlClauses(column: String) -> ([String], StatementArguments) {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        for (key, values) in sortedClauses {
            let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
            clauses.append("EXISTS (SELECT 1 FROM json_each(\(column)) WHERE key = ? AND value IN (\(marks)))")
            arguments += [key]
            arguments += StatementArguments(values)
        }
        return (clauses, arguments)
    }
}
