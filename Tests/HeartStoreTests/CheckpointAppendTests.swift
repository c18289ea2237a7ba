import Foundation
import HealthModel
import Testing
@testable import HeartStore

/// Checkpoints handed over as appends (`SeriesAppend`): the writer checks that each follows what it stored (the
/// item count) and refuses the others, on the journal and on an in-memory store alike.
@Suite struct CheckpointAppendTests {
    typealias Delta = CheckpointJournalDeltaTests

    static func recoveredItems(_ dir: TempDirectory, _ uuid: UUID) throws -> SeriesItems? {
        let db = try HeartDatabase(path: dir.databasePath)
        _ = try db.recoverCheckpoints()
        return try Delta.recovered(db, uuid)
    }

    @Test func anAppendThatDoesNotFollowIsRefusedAndChangesNothing() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        do {
            let writer = try CheckpointWriter(database: try HeartDatabase(path: dir.databasePath))
            for count in 1...10 { try writer.write([Delta.change(Delta.beats, uuid, count)]) }
            // Built on 9 items (a checkpoint lost on the way), and beats where points were journaled.
            let behind = Delta.change(Delta.beats, uuid, 10)
            guard case .appended(let wrongKind) = Delta.change(Delta.heartRate, uuid, 11) else { return }
            for refused in [behind, .appended(SeriesAppend(uuid: uuid, after: 10, keeping: 10,
                                                           items: wrongKind.items, end: wrongKind.end))] {
                let error = #expect(throws: StoreError.self) { try writer.write([refused]) }
                #expect(error?.code == .conflict)
            }
        }
        #expect(try Self.recoveredItems(dir, uuid) == Delta.stored(Delta.beats(uuid, 10)))
    }

    @Test func anAppendToASeriesNeverStoredIsNotFound() throws {
        let dir = try TempDirectory()
        for db in [try HeartDatabase(path: dir.databasePath), try HeartDatabase.inMemory()] {
            let writer = try CheckpointWriter(database: db)
            let error = #expect(throws: StoreError.self) { try writer.write([Delta.change(Delta.beats, UUID(), 5)]) }
            #expect(error?.code == .notFound)
        }
    }

    @Test func aSeriesWrittenWholeThenAppendedIsStoredAsTheWholeWouldBe() throws {
        // The journal (deltas after a full record) and an in-memory store (rows rewritten) hold the same series.
        let hb = UUID(), hr = UUID()
        let memory = try HeartDatabase.inMemory()
        let dir = try TempDirectory()
        do {
            let writers = [try CheckpointWriter(database: memory),
                           try CheckpointWriter(database: try HeartDatabase(path: dir.databasePath))]
            for count in 1...60 {
                let changes = [Delta.change(Delta.beats, hb, count), Delta.change(Delta.heartRate, hr, count)]
                for writer in writers { try writer.write(changes) }
            }
        }
        for uuid in [hb, hr] {
            let whole = uuid == hb ? Delta.beats(hb, 60) : Delta.heartRate(hr, 60)
            let row = try #require(try memory.checkpoints().first { $0.uuid == uuid })
            #expect(SeriesItems(row) == (try Delta.stored(whole)))
            #expect(row.end == whole.end)
            #expect(try Self.recoveredItems(dir, uuid) == Delta.stored(whole))
        }
    }
}
