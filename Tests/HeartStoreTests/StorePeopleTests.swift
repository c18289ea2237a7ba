import Foundation
import HealthModel
import Testing
@testable import HeartStore

/// People in the store (migration `v4-people`): saved and replaced with a new anchor, a strap worn by at most one
/// person and a person wearing at most one strap, removal leaving a tombstone, and the table surviving a reopen.
@Suite struct StorePeopleTests {
    @Test func savedReplacedAndReadBackAfterAReopen() throws {
        let dir = try TempDirectory()
        let ana: Person
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            ana = try db.savePerson(Person(name: "Ana <b>", heartRateMaximum: 188, weightKg: 61.5, restingHeartRate: 52))
            #expect(ana.anchor != nil)
            try db.close()
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(try db.people() == [ana])
        var older = ana
        older.age = 40
        older.heartRateMaximum = nil
        let replaced = try db.savePerson(older)
        #expect(replaced.anchor! > ana.anchor! && replaced.age == 40 && replaced.heartRateMaximum == nil)
        #expect(replaced.effectiveHeartRateMaximum == 180, "Tanaka: 208 − 0.7 × 40")
        #expect(try db.person(uuid: ana.uuid) == replaced)
    }

    @Test func aStrapHasAtMostOnePersonAndAPersonAtMostOneStrap() throws {
        let db = try HeartDatabase.inMemory()
        let a = try db.savePerson(Person(name: "A"))
        let b = try db.savePerson(Person(name: "B"))
        let strap1 = "a0:9e:1a:00:00:01", strap2 = "A0:9E:1A:00:00:02"
        let first = try db.assign(strap: strap1, to: a.uuid)
        #expect(first.map(\.uuid) == [a.uuid] && first.last?.strap == strap1.uppercased())
        // B takes strap 1: A is released, in the same write.
        let second = try db.assign(strap: strap1, to: b.uuid)
        #expect(second.map(\.uuid) == [a.uuid, b.uuid])
        #expect(try db.person(uuid: a.uuid)?.strap == nil)
        // B moves to strap 2: strap 1 is free.
        try db.assign(strap: strap2, to: b.uuid)
        #expect(try db.people().compactMap(\.strap) == [strap2])
        // A save keeps the strap; unassign releases it, once.
        var renamed = try #require(try db.person(uuid: b.uuid))
        renamed.name = "Bea"
        renamed.strap = nil
        #expect(try db.savePerson(renamed).strap == strap2)
        #expect(try db.unassign(strap: strap2.lowercased())?.uuid == b.uuid)
        #expect(try db.unassign(strap: strap2) == nil)
        #expect(throws: StoreError.self) { try db.assign(strap: strap1, to: UUID()) }
    }

    @Test func removalLeavesATombstoneInTheChangesAndTheUUIDIsNotReused() throws {
        let db = try HeartDatabase.inMemory()
        let p = try db.savePerson(Person(name: "C"))
        let before = try db.currentAnchor()
        #expect(before == p.anchor)
        let removed = try db.removePerson(uuid: p.uuid)
        #expect(removed.uuid == p.uuid)
        #expect(try db.people().isEmpty)
        let changes = try db.changes(since: before)
        #expect(changes.deleted == [p.uuid])
        #expect(throws: StoreError.self) { try db.savePerson(p) }
        #expect(throws: StoreError.self) { try db.removePerson(uuid: p.uuid) }
    }
}
