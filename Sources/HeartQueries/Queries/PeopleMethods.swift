import Control
import Foundation
import HealthModel
import HeartStore
import SourceEvents

/// The people methods: `people` (read), `person.set`, `person.remove`, `person.assign` and `person.unassign`
/// (session access: who may run a session may say who wears which strap). Params are decoded into the calls'
/// `Params` types; a person is named by UUID or by a name only one person has.
extension StoreQueries {
    func peopleList() throws -> PeopleCall.Result {
        PeopleCall.Result(people: try database.people())
    }

    func personSet(_ params: [String: JSONValue]) throws -> Person {
        let p = try Self.decode(PersonSetCall.Params.self, params)
        var person = Person(name: p.name, heartRateMaximum: p.heartRateMaximum, age: p.age, weightKg: p.weightKg,
                            restingHeartRate: p.restingHeartRate)
        if let uuid = p.uuid {
            guard let parsed = UUID(uuidString: uuid) else { throw ControlError(.invalidParams, "'uuid': not a UUID: \(uuid)") }
            guard try database.person(uuid: parsed) != nil else { throw ControlError(.notFound, "no person \(parsed)") }
            person.uuid = parsed
        }
        do {
            try person.validate()
        } catch {
            throw ControlError(.invalidParams, "person: \(error.detail)")
        }
        return try database.savePerson(person)
    }

    func personRemove(_ params: [String: JSONValue]) throws -> Person {
        let p = try Self.decode(PersonParams.self, params)
        return try database.removePerson(uuid: try resolvePerson(p.person).uuid)
    }

    func personAssign(_ params: [String: JSONValue]) throws -> Person {
        let p = try Self.decode(PersonAssignCall.Params.self, params)
        let address = try Self.address(p.address)
        let person = try resolvePerson(p.person)
        guard let assigned = try database.assign(strap: address, to: person.uuid).last else {
            throw ControlError(.internalError, "person.assign: the store returned nobody")
        }
        return assigned
    }

    func personUnassign(_ params: [String: JSONValue]) throws -> PersonUnassignCall.Result {
        let p = try Self.decode(AddressParams.self, params)
        let address = try Self.address(p.address)
        return PersonUnassignCall.Result(address: address, person: try database.unassign(strap: address))
    }

    /// The person `text` names: a UUID, else the one person with exactly that name.
    func resolvePerson(_ text: String) throws -> Person {
        if let uuid = UUID(uuidString: text) {
            guard let person = try database.person(uuid: uuid) else { throw ControlError(.notFound, "no person \(uuid)") }
            return person
        }
        let named = try database.people().filter { $0.name == text }
        guard let only = named.first, named.count == 1 else {
            if named.isEmpty { throw ControlError(.notFound, "no person named '\(text)'") }
            throw ControlError(.invalidParams, "\(named.count) people are named '\(text)'; name one by UUID: "
                + named.map(\.uuid.uuidString).joined(separator: ", "))
        }
        return only
    }

    /// The person tags a session starting now on `devices` (empty: every sensor) carries: those of the one person
    /// wearing its straps; none when nobody or several people do.
    func personTags(forSessionOn devices: [String]) throws -> Metadata {
        let wearing = try database.people().filter { person in
            person.strap.map { strap in devices.isEmpty || devices.contains { $0.caseInsensitiveCompare(strap) == .orderedSame } } ?? false
        }
        return wearing.count == 1 ? wearing[0].tags : [:]
    }

    static func address(_ text: String) throws(ControlError) -> String {
        guard let address = DeviceAddress.normalized(text) else {
            throw ControlError(.invalidParams, "'\(text)' is not a Bluetooth address (AA:BB:CC:DD:EE:FF)")
        }
        return address
    }

    /// A method's params decoded into its call's `Params` type; a missing or mistyped field is `invalid-params`
    /// naming it.
    public static func decode<T: Decodable>(_ type: T.Type, _ params: [String: JSONValue]) throws(ControlError) -> T {
        do {
            return try JSONBridge.decode(type, from: .object(params))
        } catch {
            throw ControlError(.invalidParams, "params: \(Self.describe(error))")
        }
    }

    /// A decoding error as a person reads it: the field and what was wrong.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        if case .keyNotFound(let key, _) = error { return "'\(key.stringValue)' is missing" }
        var context: DecodingError.Context?
        if case .typeMismatch(_, let c) = error { context = c }
        if case .valueNotFound(_, let c) = error { context = c }
        if case .dataCorrupted(let c) = error { context = c }
        guard let context else { return "\(error)" }
        let field = context.codingPath.map(\.stringValue).joined(separator: ".")
        return field.isEmpty ? context.debugDescription : "'\(field)': \(context.debugDescription)"
    }
}
