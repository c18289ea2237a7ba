import Foundation
import HealthModel
import Testing
@testable import HeartStore

/// The open-series journal (`CheckpointWriter`): checkpoints survive a crash without an SQLite transaction each.
@Suite struct CheckpointJournalTests {
    /// The first `count` beats of one open heartbeat series (a snapshot of it as it grows).
    static func openSeries(_ uuid: UUID, beats count: Int) -> Sample {
        let beats = Fixtures.beats(count: 400, seed: 5).prefix(count)
        return .heartbeatSeries(HeartbeatSeriesSample(
            uuid: uuid, start: Fixtures.start, end: Fixtures.start, beats: Array(beats), device: Fixtures.strap,
            metadata: ["k": "v"]))
    }

    /// Writes each batch through a writer on the store in `dir`, then lets everything go as a crash would.
    static func crash(afterWriting batches: [[Sample]], in dir: TempDirectory) throws {
        let db = try HeartDatabase(path: dir.databasePath)
        let writer = try CheckpointWriter(database: db)
        for batch in batches { try writer.write(batch) }
    }

    static func recoveredBeats(_ db: HeartDatabase, _ uuid: UUID) throws -> [Beat]? {
        guard case .heartbeatSeries(let series) = try db.sample(uuid: uuid) else { return nil }
        #expect(series.metadata[MetadataKey.recovered] == "true")
        #expect(series.device == Fixtures.strap)
        return series.beats
    }

    @Test func snapshotsGoToTheJournalAndTheNewestIsRecovered() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        let rate = Fixtures.heartRateSample(count: 30)
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db)
            for count in [10, 20, 30] { try writer.write([Self.openSeries(uuid, beats: count)]) }
            try writer.write([rate])
            #expect(try db.checkpoints().isEmpty, "no SQLite transaction per checkpoint")
            #expect(writer.compactions == 0)
            // The process dies here: nothing is finished or closed.
        }
        let db = try HeartDatabase(path: dir.databasePath)
        let recovered = try db.recoverCheckpoints()
        #expect(Set(recovered.map(\.uuid)) == [uuid, rate.uuid])
        #expect(try Self.recoveredBeats(db, uuid) == Array(Fixtures.beats(count: 400, seed: 5).prefix(30)))
        let journal = try #require(db.journalPath)
        #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == Data(OpenSeriesJournal.fileHeader),
                "the journal is emptied after recovery")
        #expect(try db.recoverCheckpoints().isEmpty)
    }

    @Test func metadataAndDeviceChangesReachTheJournal() throws {
        // Their JSON is cached per series; a change must still be written.
        let dir = try TempDirectory()
        let uuid = UUID()
        var renamed = Fixtures.strap
        renamed.firmwareVersion = "5.1.0"
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db)
            try writer.write([Self.openSeries(uuid, beats: 10)])
            guard case .heartbeatSeries(var changed) = Self.openSeries(uuid, beats: 20) else { return }
            changed.metadata["k"] = "w"
            changed.device = renamed
            try writer.write([.heartbeatSeries(changed)])
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(try db.recoverCheckpoints().map(\.uuid) == [uuid])
        guard case .heartbeatSeries(let series) = try db.sample(uuid: uuid) else {
            Issue.record("not recovered")
            return
        }
        #expect(series.metadata["k"] == "w")
        #expect(series.device == renamed)
        #expect(series.beats.count == 20)
    }

    @Test func aFullJournalIsCompactedIntoTheDatabase() throws {
        let dir = try TempDirectory()
        let uuid = UUID(), other = UUID()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db, compactionBytes: 600)
            try writer.write([Self.openSeries(other, beats: 5)])
            for count in stride(from: 10, through: 200, by: 10) { try writer.write([Self.openSeries(uuid, beats: count)]) }
            #expect(writer.compactions > 0)
            // A compaction writes every open series, including one that has not changed since.
            #expect(Set(try db.checkpoints().map(\.uuid)) == [uuid, other])
            let size = try #require(try FileManager.default.attributesOfItem(atPath: db.journalPath!)[.size] as? Int)
            #expect(size < 600 + 1000, "the journal stays near its limit: \(size) bytes")
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(Set(try db.recoverCheckpoints().map(\.uuid)) == [uuid, other])
        #expect(try Self.recoveredBeats(db, uuid)?.count == 200)
        #expect(try Self.recoveredBeats(db, other)?.count == 5)
    }

    @Test func aTornLastRecordIsIgnoredReportedAndCutOff() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        try Self.crash(afterWriting: [[Self.openSeries(uuid, beats: 10)], [Self.openSeries(uuid, beats: 20)]], in: dir)
        let path = dir.databasePath + "-open"
        // A crash inside the second write: its record is cut short.
        let full = try journalRecords(path)
        try full.prefix(full.count - 7).write(to: URL(fileURLWithPath: path))
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let recovery = try db.recoverOpenSeries()
            #expect(recovery.samples.map(\.uuid) == [uuid])
            #expect(try Self.recoveredBeats(db, uuid)?.count == 10, "the snapshot before the torn one")
            #expect(recovery.discardedJournalBytes > 0, "the torn bytes are reported")
        }
        // Torn again, then opened by a writer: it cuts the tail, so its appends follow the intact record and
        // can be read back (after the torn bytes they could not).
        let second = UUID()
        try full.prefix(full.count - 7).write(to: URL(fileURLWithPath: path))
        do {
            let journal = try OpenSeriesJournal(path: path)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(size == journal.length && size < full.count - 7, "the torn bytes are cut off on opening")
        }
        try Self.crash(afterWriting: [[Self.openSeries(second, beats: 30)]], in: dir)
        let db = try HeartDatabase(path: dir.databasePath)
        // `uuid` was saved by the first recovery: its old snapshot is not saved again.
        #expect(try db.recoverCheckpoints().map(\.uuid) == [second])
        #expect(try Self.recoveredBeats(db, second)?.count == 30)
    }

    @Test func damagedBytesStopTheScanButKeepWhatCameBefore() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        try Self.crash(afterWriting: [[Self.openSeries(uuid, beats: 10)], [Self.openSeries(uuid, beats: 20)]], in: dir)
        let db = try HeartDatabase(path: dir.databasePath)
        let path = try #require(db.journalPath)
        var bytes = [UInt8](try journalRecords(path))
        bytes[bytes.count - 20] ^= 0xFF  // inside the second record's payload: its CRC no longer matches
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try db.recoverCheckpoints().map(\.uuid) == [uuid])
        #expect(try Self.recoveredBeats(db, uuid)?.count == 10)
    }

    @Test func anOlderJournalSnapshotDoesNotReplaceANewerRow() throws {
        // A crash between a compaction's commit and the journal's reset leaves snapshots older than the rows.
        let dir = try TempDirectory()
        let uuid = UUID()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db)
            try writer.write([Self.openSeries(uuid, beats: 10)])
            try db.writeCheckpoints([Self.openSeries(uuid, beats: 50)])
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(try db.recoverCheckpoints().map(\.uuid) == [uuid])
        #expect(try Self.recoveredBeats(db, uuid)?.count == 50)
    }

    @Test func aSavedSeriesIsNotRecoveredFromItsOldSnapshots() throws {
        let dir = try TempDirectory()
        let saved = UUID(), open = UUID()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db)
            try writer.write([Self.openSeries(saved, beats: 10), Self.openSeries(open, beats: 5)])
            guard case .heartbeatSeries(var finished) = Self.openSeries(saved, beats: 12) else { return }
            finished.metadata[MetadataKey.finishReason] = "idle"
            try db.save([.heartbeatSeries(finished)], closingCheckpoints: [saved])
            writer.closed([saved])
            // The process dies with `open` still open: the journal keeps both snapshots.
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(try db.recoverCheckpoints().map(\.uuid) == [open])
        guard case .heartbeatSeries(let stored) = try db.sample(uuid: saved) else {
            Issue.record("the saved series is gone")
            return
        }
        #expect(stored.beats.count == 12)
        #expect(stored.metadata[MetadataKey.finishReason] == "idle")
        #expect(stored.metadata[MetadataKey.recovered] == nil)
        #expect(try db.checkpoints().isEmpty)
    }

    @Test func closingTheLastOpenSeriesEmptiesTheJournal() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let path = try #require(db.journalPath)
        let writer = try CheckpointWriter(database: db)
        let a = UUID(), b = UUID()
        try writer.write([Self.openSeries(a, beats: 10), Self.openSeries(b, beats: 10)])
        writer.closed([a])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).count > OpenSeriesJournal.fileHeader.count)
        writer.closed([b])
        // The header alone: no record, and no room kept past it.
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == OpenSeriesJournal.fileHeader)
    }

    /// A journal left by a heartd that reserved room ahead (records, then zeros to the end of its blocks) and was
    /// killed: its records are recovered, the zeros are not damage, and the file is cut back to its records on open.
    @Test func zerosAfterTheRecordsAreNotDamage() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        try Self.crash(afterWriting: [[Self.openSeries(uuid, beats: 12)]], in: dir)
        let path = dir.databasePath + "-open"
        let records = try journalRecords(path)
        try (records + Data(count: 64 << 10)).write(to: URL(fileURLWithPath: path))
        do {
            let journal = try OpenSeriesJournal(path: path)
            #expect(journal.length == records.count)
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
            #expect(size == records.count, "the zeros are cut off on opening")
        }
        let db = try HeartDatabase(path: dir.databasePath)
        let recovery = try db.recoverOpenSeries()
        #expect(recovery.discardedJournalBytes == 0)
        #expect(recovery.samples.map(\.uuid) == [uuid])
        #expect(try Self.recoveredBeats(db, uuid)?.count == 12)
    }

    @Test func aWriterOpenedWithoutRecoveryKeepsWhatTheJournalHeld() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            try CheckpointWriter(database: db).write([Self.openSeries(uuid, beats: 20)])
        }
        let db = try HeartDatabase(path: dir.databasePath)
        let writer = try CheckpointWriter(database: db, compactionBytes: 1)
        // The next compaction writes only what this writer knows; the old snapshot must already be in the table.
        try writer.write([Self.openSeries(UUID(), beats: 3)])
        try writer.write([Self.openSeries(UUID(), beats: 3)])
        #expect(writer.compactions > 0)
        let stored = try db.checkpoints().first { $0.uuid == uuid }
        guard case .heartbeatSeries(let series) = stored else {
            Issue.record("the journaled series was dropped")
            return
        }
        #expect(series.beats.count == 20)
    }

    @Test func oneJournalWriterPerStore() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let writer = try CheckpointWriter(database: db)
        #expect(throws: StoreError.self) { try CheckpointWriter(database: db) }
        do {
            _ = try db.recoverCheckpoints()
            Issue.record("recovery ran while another writer holds the journal")
        } catch {
            #expect(error.code == .busy)
        }
        _ = writer
    }

    @Test func aForeignFileIsNotTakenForAJournal() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        try Data("not a journal at all\n".utf8).write(to: URL(fileURLWithPath: try #require(db.journalPath)))
        #expect { try CheckpointWriter(database: db) } throws: { ($0 as? StoreError)?.code == .corruptBlob }
    }

    @Test func inMemoryCheckpointsGoStraightToSQLite() throws {
        let db = try HeartDatabase.inMemory()
        let writer = try CheckpointWriter(database: db)
        let uuid = UUID()
        try writer.write([Self.openSeries(uuid, beats: 10)])
        #expect(try db.checkpoints().map(\.uuid) == [uuid])
    }
}
