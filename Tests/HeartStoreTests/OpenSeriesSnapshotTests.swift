import Foundation
import HealthModel
import Testing
@testable import HeartStore

/// `openSeriesSnapshots`: what a reader of the store file (`heartctl --db`) sees of the series a running daemon
/// still holds open, read while the daemon's `CheckpointWriter` keeps its journal locked.
@Suite struct OpenSeriesSnapshotTests {
    static func openSeries(_ uuid: UUID, beats count: Int) -> Sample { CheckpointJournalTests.openSeries(uuid, beats: count) }

    static func beatCounts(_ samples: [Sample]) -> [UUID: Int] {
        var counts: [UUID: Int] = [:]
        for case .heartbeatSeries(let s) in samples { counts[s.uuid] = s.beats.count }
        return counts
    }

    @Test func aReaderSeesTheNewestSnapshotOfEachOpenSeriesButNotTheStoredOnes() throws {
        let dir = try TempDirectory()
        let open = UUID(), saved = UUID()
        let rate = Fixtures.heartRateSample(count: 30)
        let db = try HeartDatabase(path: dir.databasePath)
        let writer = try CheckpointWriter(database: db)   // held, as by a running daemon
        for count in [10, 20] { try writer.write([Self.openSeries(open, beats: count), rate]) }
        try writer.write([Self.openSeries(saved, beats: 8)])
        guard case .heartbeatSeries(var finished) = Self.openSeries(saved, beats: 9) else { return }
        finished.metadata[MetadataKey.finishReason] = "idle"
        try db.save([.heartbeatSeries(finished)], closingCheckpoints: [saved])
        writer.closed([saved])   // `open` is still open, so the journal keeps the saved series' snapshot

        let reader = try HeartDatabase.openReadOnly(path: dir.databasePath)
        let snapshots = try reader.openSeriesSnapshots()
        #expect(Set(snapshots.map(\.uuid)) == [open, rate.uuid], "the saved series is not open any more")
        #expect(Self.beatCounts(snapshots) == [open: 20], "the newest snapshot")
        guard case .quantity(let q)? = snapshots.first(where: { $0.uuid == rate.uuid }) else {
            Issue.record("no heart-rate snapshot")
            return
        }
        #expect(q.points.count == 30 && q.aggregates.average != nil)
        #expect(try reader.checkpoints().isEmpty, "all of it came from the journal: no SQLite row yet")
    }

    @Test func compactedSnapshotsComeFromTheTableAndNewerOnesFromTheJournal() throws {
        let dir = try TempDirectory()
        let a = UUID(), b = UUID()
        let db = try HeartDatabase(path: dir.databasePath)
        // The journal holds only its header (29 bytes) below the threshold: the first write is appended, the second
        // compacts the newest snapshots into `open_series` (and is not journaled), the third is appended again.
        let writer = try CheckpointWriter(database: db, compactionBytes: OpenSeriesJournal.fileHeader.count + 1)
        try writer.write([Self.openSeries(a, beats: 30), Self.openSeries(b, beats: 5)])
        try writer.write([Self.openSeries(b, beats: 6)])
        try writer.write([Self.openSeries(b, beats: 7)])
        #expect(writer.compactions == 1)
        let reader = try HeartDatabase.openReadOnly(path: dir.databasePath)
        #expect(Self.beatCounts(try reader.checkpoints()) == [a: 30, b: 6])
        #expect(Self.beatCounts(try reader.openSeriesSnapshots()) == [a: 30, b: 7])
    }

    @Test func noJournalAndNoRowsIsNoOpenSeries() throws {
        let dir = try TempDirectory()
        try HeartDatabase(path: dir.databasePath).save([Fixtures.heartbeatSample()])
        let reader = try HeartDatabase.openReadOnly(path: dir.databasePath)
        #expect(try reader.openSeriesSnapshots().isEmpty)
    }
}
