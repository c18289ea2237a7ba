import Foundation
import GRDB
import HealthModel

extension HeartDatabase {
    /// Journals open series (upsert by UUID, replacing their contents) so a crash loses at most the beats
    /// since the last call. Call about once a second with every series that changed.
    public func writeCheckpoints(_ open: [Sample]) throws(StoreError) {
        let now = Date()
        var records: [CheckpointRecord] = []
        records.reserveCapacity(open.count)
        for sample in open { records.append(try CheckpointRecord(sample: sample, updatedAt: now)) }
        try write { db in
            for record in records { try record.replace(in: db) }
        }
    }

    /// Writes checkpoints as `open_series` rows in one transaction: a whole series as it is, an append applied to
    /// the row it follows (read, decoded and encoded again: this path serves in-memory stores and batch imports,
    /// whose checkpoints are rare). Throws `.notFound` or `.conflict` when an append follows no row or another
    /// item count.
    public func writeCheckpoints(_ updates: [SeriesCheckpoint]) throws(StoreError) {
        try writeCheckpoints(updates, updatedAt: Date())
    }

    func writeCheckpoints(_ updates: [SeriesCheckpoint], updatedAt now: Date) throws(StoreError) {
        try write { db in
            for update in updates {
                switch update {
                case .full(let sample): try CheckpointRecord(sample: sample, updatedAt: now).replace(in: db)
                case .appended(let append): try Self.checkpointBase(append, updatedAt: now, in: db).record.replace(in: db)
                }
            }
        }
    }

    /// The `open_series` row of `append`'s series with the change applied, and its item count.
    func checkpointBase(_ append: SeriesAppend, updatedAt: Date) throws(StoreError) -> (record: CheckpointRecord, count: Int) {
        try read { db in try Self.checkpointBase(append, updatedAt: updatedAt, in: db) }
    }

    private static func checkpointBase(_ append: SeriesAppend, updatedAt: Date, in db: Database) throws
        -> (record: CheckpointRecord, count: Int) {
        guard let row = try CheckpointRecord.filter(CheckpointRecord.Columns.uuid == StoreCoding.uuidBlob(append.uuid))
            .fetchOne(db) else {
            throw StoreError(.notFound, "checkpoint \(append.uuid): no earlier checkpoint for the change to follow")
        }
        return try row.applying(append, updatedAt: updatedAt)
    }

    /// The journaled open series, oldest first; quantity samples carry aggregates computed from their points.
    public func checkpoints() throws(StoreError) -> [Sample] {
        let records = try read { db in
            try CheckpointRecord.order(CheckpointRecord.Columns.startDate).fetchAll(db)
        }
        var samples: [Sample] = []
        samples.reserveCapacity(records.count)
        for record in records { samples.append(try record.sample()) }
        return samples
    }

    /// Removes checkpoints (series abandoned or saved elsewhere).
    public func deleteCheckpoints(_ uuids: [UUID]) throws(StoreError) {
        guard !uuids.isEmpty else { return }
        try write { db in try Self.deleteCheckpoints(uuids, in: db) }
    }

    /// Finishes every checkpoint left by a crashed run — the `open_series` rows and the newer snapshots of the
    /// open-series journal (`CheckpointWriter`): each becomes a sample with metadata `recovered = "true"` and
    /// `finishReason = "recovery"` (heartbeat end = start + last offset; quantity aggregates recomputed, end =
    /// latest point end). Empty checkpoints are only deleted; a snapshot of a series saved since is skipped (its
    /// UUID is stored). Saving and deleting happen in one transaction, then the journal is emptied. Returns the
    /// samples saved.
    public func recoverCheckpoints(finishedAt: Date = Date()) throws(StoreError) -> [Sample] {
        try recoverOpenSeries(finishedAt: finishedAt).samples
    }

    /// What `recoverOpenSeries` did.
    public struct Recovery: Sendable {
        /// The samples saved from checkpoints.
        public var samples: [Sample]
        /// Bytes after the journal's last intact record, dropped: a snapshot write cut short by the crash (the
        /// series' previous snapshot was used) or damage.
        public var discardedJournalBytes: Int
    }

    /// `recoverCheckpoints`, also reporting what of the journal could not be read.
    public func recoverOpenSeries(finishedAt: Date = Date()) throws(StoreError) -> Recovery {
        guard !isReadOnly else {
            throw StoreError(.readOnly, "the database \(path ?? ":memory:") is open read-only")
        }
        let journal = try journalPath.map { path throws(StoreError) in try OpenSeriesJournal(path: path) }
        let read = try journal?.records()
        let journaled = read?.records ?? []
        let recovered = try write { db in
            try Self.absorb(journaled, in: db)
            let records = try CheckpointRecord.order(CheckpointRecord.Columns.startDate).fetchAll(db)
            var finished: [Sample] = []
            for record in records {
                if let sample = try Self.finishedSample(from: record) { finished.append(sample) }
            }
            let result = try Self.save(
                finished, closingCheckpoints: records.map(\.uuid), now: finishedAt, in: db)
            let saved = Set(result.saved)
            return finished.filter { saved.contains($0.uuid) }
        }
        try journal?.reset()
        return Recovery(samples: recovered, discardedJournalBytes: read?.damagedBytes ?? 0)
    }

    /// The series still open in a running daemon, as its checkpoints have them (the newest snapshot in the journal
    /// or the `open_series` row, whichever holds more), minus those stored since: the series recovery would finish.
    /// Reads without locking, so a reader (`heartctl --db`) can show them beside the stored ones while the daemon
    /// runs; they lag the daemon by up to one checkpoint (about a second). Oldest first.
    public func openSeriesSnapshots() throws(StoreError) -> [Sample] {
        var newest: [UUID: CheckpointRecord] = [:]
        for record in try journalPath.map({ path throws(StoreError) in try OpenSeriesJournal.peek(path: path) }) ?? [] {
            newest[record.uuid] = record
        }
        let records = try read { db in
            for row in try CheckpointRecord.fetchAll(db) {
                if let journaled = newest[row.uuid], try Self.itemCount(journaled) >= Self.itemCount(row) { continue }
                newest[row.uuid] = row
            }
            let stored = try db.cachedStatement(sql: "SELECT 1 FROM samples WHERE uuid = ?")
            return try newest.values.filter { record in
                try Bool.fetchOne(stored, arguments: [StoreCoding.uuidBlob(record.uuid)]) != true
            }
        }
        var samples: [Sample] = []
        for record in records.sorted(by: { ($0.start, $0.uuid.uuidString) < ($1.start, $1.uuid.uuidString) }) {
            samples.append(try record.sample())
        }
        return samples
    }

    /// Puts the newest journaled snapshot of each series into `open_series` unless the row there holds more
    /// (a crash between a compaction's commit and the journal's reset leaves older snapshots behind).
    static func absorb(_ journaled: [CheckpointRecord], in db: Database) throws {
        var newest: [UUID: CheckpointRecord] = [:]
        for record in journaled { newest[record.uuid] = record }
        for record in newest.values {
            if let row = try CheckpointRecord.filter(CheckpointRecord.Columns.uuid == StoreCoding.uuidBlob(record.uuid))
                .fetchOne(db), try itemCount(row) > itemCount(record) {
                continue
            }
            try record.replace(in: db)
        }
    }

    private static func itemCount(_ record: CheckpointRecord) throws -> Int {
        switch try record.sample() {
        case .heartbeatSeries(let series): series.beats.count
        case .quantity(let quantity): quantity.points.count
        }
    }

    static func finishedSample(from record: CheckpointRecord) throws(StoreError) -> Sample? {
        let recoveryMetadata = [MetadataKey.recovered: "true", MetadataKey.finishReason: "recovery"]
        switch try record.sample() {
        case .heartbeatSeries(var series):
            guard let last = series.beats.last else { return nil }
            series.end = series.start.addingTimeInterval(last.offset)
            series.metadata.merge(recoveryMetadata) { _, new in new }
            return .heartbeatSeries(series)
        case .quantity(var quantity):
            guard !quantity.points.isEmpty else { return nil }
            quantity.points.sort { $0.start < $1.start }
            quantity.aggregates = QuantityAggregates(points: quantity.points, style: quantity.type.aggregation)
            quantity.end = quantity.points.map(\.end).max() ?? quantity.start
            quantity.metadata.merge(recoveryMetadata) { _, new in new }
            return .quantity(quantity)
        }
    }

    static func deleteCheckpoints(_ uuids: [UUID], in db: Database) throws {
        guard !uuids.isEmpty else { return }
        // A cached statement: this runs with every save of finished series.
        let delete = try db.cachedStatement(sql: "DELETE FROM open_series WHERE uuid = ?")
        for uuid in uuids { try delete.execute(arguments: [StoreCoding.uuidBlob(uuid)]) }
    }
}
