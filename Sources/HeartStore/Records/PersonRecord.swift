import Foundation
import GRDB
import HealthModel

/// A row of `people`, read and written as a `Person`.
struct PersonRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "people"

    var person: Person

    init(_ person: Person) {
        self.person = person
    }

    init(row: Row) throws {
        person = Person(
            uuid: try StoreCoding.uuid(try row.decode(forColumn: "uuid")),
            name: try row.decode(forColumn: "name"),
            heartRateMaximum: try row.decode(forColumn: "heartRateMaximum"),
            age: try row.decode(forColumn: "age"),
            weightKg: try row.decode(forColumn: "weightKg"),
            restingHeartRate: try row.decode(forColumn: "restingHeartRate"),
            strap: try row.decode(forColumn: "strap"),
            anchor: try row.decode(forColumn: "anchor"))
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["uuid"] = StoreCoding.uuidBlob(person.uuid)
        container["name"] = person.name
        container["heartRateMaximum"] = person.heartRateMaximum
        container["age"] = person.age
        container["weightKg"] = person.weightKg
        container["restingHeartRate"] = person.restingHeartRate
        container["strap"] = person.strap
        container["anchor"] = person.anchor
    }
}
