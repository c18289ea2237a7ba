import Foundation
import HealthModel
import Posix
import Testing
@testable import HeartStore

/// Checkpoints journaled on the caller's thread (`CheckpointWriter.writeWithoutWaiting`): a copy into blocks the
/// store writer reserved, recovered after a crash like any append; refused, with nothing written, where it would
/// need a system call, the database or a compaction.
@Suite struct CheckpointWithoutWaitingTests {
    typealias Delta = CheckpointJournalDeltaTests

    static func fileBytes(_ db: HeartDatabase) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: try #require(db.journalPath))))
    }

    @Test func appendsCopiedIntoReservedBlocksAreRecoveredAfterACrash() throws {
        let dir = try TempDirectory()
        let hb = UUID(), hr = UUID()
        var copied = 0
        do {
            let writer = try CheckpointWriter(database: try HeartDatabase(path: dir.databasePath))
            // The first checkpoint of each series is the store writer's: it reserves room ahead.
            try writer.write([Delta.change(Delta.beats, hb, 1), Delta.change(Delta.heartRate, hr, 1)])
            for count in 2...300 {
                let changes = [Delta.change(Delta.beats, hb, count), Delta.change(Delta.heartRate, hr, count)]
                if writer.writeWithoutWaiting(changes) { copied += 1 } else { try writer.write(changes) }
            }
            // The process dies here.
        }
        #expect(copied > 250, "most appends are copies: \(copied) of 299")
        let db = try HeartDatabase(path: dir.databasePath)
        let recovery = try db.recoverOpenSeries()
        #expect(Set(recovery.samples.map(\.uuid)) == [hb, hr])
        #expect(recovery.discardedJournalBytes == 0, "reserved zeros are not damage")
        #expect(try Delta.recovered(db, hb) == Delta.stored(Delta.beats(hb, 300)))
        #expect(try Delta.recovered(db, hr) == Delta.stored(Delta.heartRate(hr, 300)))
    }

    @Test func whatWouldWaitIsRefusedAndNothingIsWritten() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let uuid = UUID()
        let writer = try CheckpointWriter(database: db, compactionBytes: 4096)
        // Room is reserved when the writer opens the journal: its first checkpoint is a copy too.
        #expect(writer.writeWithoutWaiting([Delta.change(Delta.beats, uuid, 1)]))
        let reserved = try Self.fileBytes(db)
        #expect(reserved.count <= 4096, "room is not reserved past the compaction threshold: \(reserved.count)")
        // A series the journal does not hold needs its base from the database.
        #expect(!writer.writeWithoutWaiting([Delta.change(Delta.beats, UUID(), 5)]))
        // One that does not follow what was journaled is the store writer's to refuse (and report).
        #expect(!writer.writeWithoutWaiting([Delta.change(Delta.beats, uuid, 3)]))
        #expect(try Self.fileBytes(db) == reserved)
        var count = 1
        while writer.writeWithoutWaiting([Delta.change(Delta.beats, uuid, count + 1)]) { count += 1 }
        #expect(count > 20 && writer.compactions == 0, "copies until the room or the threshold runs out: \(count)")
        // The store writer takes it from there: more room, or a compaction.
        try writer.write([Delta.change(Delta.beats, uuid, count + 1)])
        writer.closed([uuid])
        let emptied = try JournalScan(try Self.fileBytes(db), path: "journal")
        #expect(emptied.records.isEmpty && emptied.damagedLength == 0, "closing the last series empties the journal")
        #expect(writer.writeWithoutWaiting([Delta.change(Delta.beats, UUID(), 1)]), "with room reserved again")
    }

    @Test func aCleanStopGivesTheReservedRoomBackAndKeepsTheRecords() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let open = UUID(), saved = UUID()
        let writer = try CheckpointWriter(database: db)
        #expect(writer.writeWithoutWaiting([Delta.change(Delta.beats, open, 1), Delta.change(Delta.beats, saved, 1)]))
        writer.closed([saved])
        let records = try JournalScan(try Self.fileBytes(db), path: "journal").validLength
        #expect(try Self.fileBytes(db).count > records, "room reserved past the records")
        try writer.releaseReservedRoom()
        #expect(try Self.fileBytes(db).count == records, "a stopped daemon leaves its records and nothing after them")
        // Still a journal: the next append reserves again, and both checkpoints are recovered.
        try writer.write([Delta.change(Delta.beats, open, 2)])
        #expect(writer.writeWithoutWaiting([Delta.change(Delta.beats, open, 3)]))
        writer.closed([open])
        try writer.releaseReservedRoom()
        #expect(try Self.fileBytes(db) == OpenSeriesJournal.fileHeader, "nothing open: the header alone")
    }

    @Test func aTornCopyBeforeTheReservedZerosIsCountedAndCutOff() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        var intact = 0
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db)
            try writer.write([Delta.change(Delta.beats, uuid, 1)])
            for count in 2...40 { #expect(writer.writeWithoutWaiting([Delta.change(Delta.beats, uuid, count)])) }
            intact = try JournalScan(try Self.fileBytes(db), path: "journal").validLength
        }
        // A crash inside the next copy: its first 20 bytes reached the page cache, the reserved zeros follow.
        let path = dir.databasePath + "-open"
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(intact))
        try handle.write(contentsOf: Data((0..<20).map { UInt8($0 + 1) }))
        try handle.close()
        let db = try HeartDatabase(path: dir.databasePath)
        let recovery = try db.recoverOpenSeries()
        #expect(recovery.discardedJournalBytes == 20)
        #expect(try Delta.recovered(db, uuid) == Delta.stored(Delta.beats(uuid, 40)))
    }

    @Test func onlyTheJournalsTailStaysResident() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let uuid = UUID()
        let writer = try CheckpointWriter(database: db, compactionBytes: 8 << 20)
        // Whole snapshots, so that the journal grows through several reservations.
        for count in 1...600 where !writer.writeWithoutWaiting([.full(Delta.beats(uuid, count))]) {
            try writer.write([.full(Delta.beats(uuid, count))])
        }
        let length = try JournalScan(try Self.fileBytes(db), path: "journal").validLength
        #expect(length > 200 << 10, "a journal of several reservations: \(length) bytes")
        let journal = try #require(db.journalPath)
        let resident = Int(try #require(ResidentMemory.bytes(mappedFrom: journal)) / 1024)
        #expect(resident > 0 && resident <= (OpenSeriesJournal.reserveAhead >> 10) + 8, "resident KB of the mapping: \(resident)")
    }
}
