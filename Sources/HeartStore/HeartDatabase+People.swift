import Foundation
import GRDB
import HealthModel

extension HeartDatabase {
    /// Every person, by name (then UUID). An older store opened read-only has none.
    public func people() throws(StoreError) -> [Person] {
        try read { db in
            guard try db.tableExists("people") else { return [] }
            return try PersonRecord.fetchAll(db, sql: "SELECT * FROM people ORDER BY name, uuid").map(\.person)
        }
    }

    /// The person with this UUID, or nil.
    public func person(uuid: UUID) throws(StoreError) -> Person? {
        try read { db in try Self.person(uuid: uuid, in: db) }
    }

    /// Stores a new person or replaces the one with its UUID (name and figures; the strap assignment is kept: it
    /// changes through `assign`/`unassign`), with a new anchor. A UUID that was removed is a `conflict`.
    @discardableResult
    public func savePerson(_ person: Person) throws(StoreError) -> Person {
        try write { db in
            let key = StoreCoding.uuidBlob(person.uuid)
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM tombstones WHERE uuid = ?", arguments: [key]) == true {
                throw StoreError(.conflict, "person \(person.uuid) was removed")
            }
            var stored = person
            stored.strap = try Self.person(uuid: person.uuid, in: db)?.strap
            var anchors = try AnchorSequence(db)
            stored.anchor = anchors.next()
            try PersonRecord(stored).save(db)
            try anchors.store(db)
            return stored
        }
    }

    /// Removes a person (a tombstone of type `Person.typeIdentifier` tells replicas); the series recorded while
    /// they wore a strap keep their tags. `notFound` for an unknown UUID.
    @discardableResult
    public func removePerson(uuid: UUID) throws(StoreError) -> Person {
        try write { db in
            guard let person = try Self.person(uuid: uuid, in: db) else { throw StoreError(.notFound, "no person \(uuid)") }
            var anchors = try AnchorSequence(db)
            try db.execute(sql: "DELETE FROM people WHERE uuid = ?", arguments: [StoreCoding.uuidBlob(uuid)])
            try TombstoneRecord(uuid: uuid, type: Person.typeIdentifier, deletedAt: Date(), anchor: anchors.next()).insert(db)
            try anchors.store(db)
            return person
        }
    }

    /// Assigns the strap `address` (upper case) to a person: whoever wore it before and whatever strap the person
    /// wore before are released, each saved with a new anchor. Returns the people changed, the assigned one last.
    @discardableResult
    public func assign(strap address: String, to uuid: UUID) throws(StoreError) -> [Person] {
        let address = address.uppercased()
        return try write { db in
            guard var person = try Self.person(uuid: uuid, in: db) else { throw StoreError(.notFound, "no person \(uuid)") }
            var anchors = try AnchorSequence(db)
            var changed: [Person] = []
            if var previous = try Self.person(strap: address, in: db), previous.uuid != uuid {
                previous.strap = nil
                previous.anchor = anchors.next()
                try PersonRecord(previous).update(db)
                changed.append(previous)
            }
            if person.strap != address {
                person.strap = address
                person.anchor = anchors.next()
                try PersonRecord(person).update(db)
            }
            try anchors.store(db)
            return changed + [person]
        }
    }

    /// Releases the strap `address`: the person wearing it (saved with a new anchor), or nil when nobody did.
    @discardableResult
    public func unassign(strap address: String) throws(StoreError) -> Person? {
        try write { db in
            guard var person = try Self.person(strap: address.uppercased(), in: db) else { return nil }
            var anchors = try AnchorSequence(db)
            person.strap = nil
            person.anchor = anchors.next()
            try PersonRecord(person).update(db)
            try anchors.store(db)
            return person
        }
    }

    static func person(uuid: UUID, in db: Database) throws -> Person? {
        guard try db.tableExists("people") else { return nil }
        return try PersonRecord.fetchOne(db, sql: "SELECT * FROM people WHERE uuid = ?",
                                         arguments: [StoreCoding.uuidBlob(uuid)])?.person
    }

    static func person(strap address: String, in db: Database) throws -> Person? {
        try PersonRecord.fetchOne(db, sql: "SELECT * FROM people WHERE strap = ?", arguments: [address])?.person
    }
}
