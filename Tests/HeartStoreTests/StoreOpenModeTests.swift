import Foundation
import HealthModel
import Testing
@testable import HeartStore

@Suite struct StoreOpenModeTests {
    @Test func readOnlyOpenReadsButRefusesWrites() throws {
        let dir = try TempDirectory()
        let sample = Fixtures.heartbeatSample(count: 10)
        let writer = try HeartDatabase(path: dir.databasePath)
        try writer.save([sample])

        let reader = try HeartDatabase.openReadOnly(path: dir.databasePath)
        #expect(reader.isReadOnly)
        #expect(try reader.sample(uuid: sample.uuid) == sample)
        #expect(try reader.integrityCheck() == "ok")
        for attempt in [{ try reader.save([Fixtures.heartbeatSample(count: 2)]) as Any },
                        { try reader.delete(uuid: sample.uuid) as Any },
                        { try reader.upsertDevice(Fixtures.strap) as Any },
                        { try reader.writeCheckpoints([Sample]()) as Any }] {
            let error = #expect(throws: StoreError.self) { _ = try attempt() }
            #expect(error?.code == .readOnly)
        }
        // Even raw SQL through the read path cannot write.
        let raw = #expect(throws: StoreError.self) {
            try reader.read { db in try db.execute(sql: "DELETE FROM samples") }
        }
        #expect(raw?.code == .readOnly)
        // The writer still sees its data, and a new sample is visible to the reader.
        let later = Fixtures.heartbeatSample(count: 3, seed: 9)
        try writer.save([later])
        #expect(try reader.sample(uuid: later.uuid) == later)
    }

    @Test func readOnlyOpenOfAClosedDatabase() throws {
        let dir = try TempDirectory()
        let sample = Fixtures.heartbeatSample(count: 10)
        do {
            let writer = try HeartDatabase(path: dir.databasePath)
            try writer.save([sample])
            try writer.close()
        }
        let reader = try HeartDatabase.openReadOnly(path: dir.databasePath)
        #expect(try reader.sample(uuid: sample.uuid) == sample)
    }

    @Test func missingOrForeignFilesAreReported() throws {
        let dir = try TempDirectory()
        let missing = #expect(throws: StoreError.self) {
            try HeartDatabase.openReadOnly(path: dir.url.appendingPathComponent("none.sqlite").path)
        }
        #expect(missing?.code == .notFound)

        let junk = dir.url.appendingPathComponent("junk.sqlite")
        try Data(repeating: 0x42, count: 8192).write(to: junk)
        let error = #expect(throws: StoreError.self) { try HeartDatabase(path: junk.path) }
        #expect(error?.code == .corruptDatabase)
    }

    @Test func corruptBlobsAreReportedNotTrapped() throws {
        let db = try HeartDatabase.inMemory()
        let sample = Fixtures.heartbeatSample(count: 10)
        try db.save([sample])
        try db.write { db in
            try db.execute(sql: "UPDATE samples SET contents = x'01FF'")
        }
        let error = #expect(throws: StoreError.self) { try db.beats(uuid: sample.uuid) }
        #expect(error?.code == .corruptBlob)
        let full = #expect(throws: StoreError.self) { try db.sample(uuid: sample.uuid) }
        #expect(full?.code == .corruptBlob)

        try db.write { db in try db.execute(sql: "UPDATE samples SET metadata = 'not json'") }
        let summaries = #expect(throws: StoreError.self) { try db.samples() }
        #expect(summaries?.code == .corruptBlob)
        let json = #expect(throws: StoreError.self) { try db.changes(since: 0) }
        #expect(json?.code == .corruptBlob)
        try db.write { db in try db.execute(sql: "UPDATE samples SET metadata = NULL, uuid = x'0102'") }
        let uuid = #expect(throws: StoreError.self) { try db.samples() }
        #expect(uuid?.code == .corruptBlob)
    }

    @Test func aFullDatabaseReportsDiskFullAndKeepsWorking() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let kept = Fixtures.heartbeatSample(count: 10)
        try db.save([kept])
        let pages = try db.read { db in try Int.fetchOne(db, sql: "PRAGMA page_count") } ?? 0
        try db.write { db in _ = try Int.fetchOne(db, sql: "PRAGMA max_page_count = \(pages + 2)") }
        let many = (0..<50).map { Fixtures.heartbeatSample(count: 1000, seed: UInt64($0)) }
        let error = #expect(throws: StoreError.self) { try db.save(many) }
        #expect(error?.code == .diskFull)
        // The failed transaction rolled back entirely; what was there before is intact.
        #expect(try db.samples().map(\.uuid) == [kept.uuid])
        #expect(try db.integrityCheck() == "ok")
    }

    @Test func sqliteResultCodesMapToStoreCodes() {
        #expect(StoreError.code(for: .SQLITE_FULL) == .diskFull)
        #expect(StoreError.code(for: .SQLITE_READONLY) == .readOnly)
        #expect(StoreError.code(for: .SQLITE_IOERR) == .io)
        #expect(StoreError.code(for: .SQLITE_CORRUPT) == .corruptDatabase)
        #expect(StoreError.code(for: .SQLITE_BUSY) == .busy)
        #expect(StoreError.code(for: .SQLITE_CONSTRAINT) == .database)
    }
}
