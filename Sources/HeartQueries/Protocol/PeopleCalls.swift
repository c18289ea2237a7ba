import Control
import Foundation
import HealthModel

/// `people`: every person, by name, each with the strap assigned now. Params: none.
public enum PeopleCall: ControlCall {
    public static let method = ControlMethod.people
    public typealias Params = NoParams

    public struct Result: Codable, Sendable, Hashable {
        public var people: [Person]

        public init(people: [Person]) { self.people = people }
    }
}

/// `person.set`: adds a person, or replaces the name and figures of the one `uuid` names (its strap stays).
/// Result: the person as stored.
public enum PersonSetCall: ControlCall {
    public static let method = ControlMethod.personSet
    public typealias Result = Person

    public struct Params: Codable, Sendable, Hashable {
        /// The person to replace; absent: a new one.
        public var uuid: String?
        public var name: String
        /// Beats per minute.
        public var heartRateMaximum: Int?
        public var age: Int?
        public var weightKg: Double?
        public var restingHeartRate: Int?

        public init(uuid: String? = nil, name: String, heartRateMaximum: Int? = nil, age: Int? = nil,
                    weightKg: Double? = nil, restingHeartRate: Int? = nil) {
            self.uuid = uuid
            self.name = name
            self.heartRateMaximum = heartRateMaximum
            self.age = age
            self.weightKg = weightKg
            self.restingHeartRate = restingHeartRate
        }
    }
}

/// The params naming one person: `person`, a UUID or a name that only one person has.
public struct PersonParams: Codable, Sendable, Hashable {
    public var person: String

    public init(person: String) { self.person = person }
}

/// `person.remove`: removes a person (their strap is released; what they recorded keeps their tags). Result: the
/// person removed.
public enum PersonRemoveCall: ControlCall {
    public static let method = ControlMethod.personRemove
    public typealias Params = PersonParams
    public typealias Result = Person
}

/// `person.assign`: the strap `address` is worn by `person` from now on (whoever wore it, and whatever strap the
/// person wore, are released). Result: the person.
public enum PersonAssignCall: ControlCall {
    public static let method = ControlMethod.personAssign
    public typealias Result = Person

    public struct Params: Codable, Sendable, Hashable {
        public var person: String
        public var address: String

        public init(person: String, address: String) {
            self.person = person
            self.address = address
        }
    }
}

/// `person.unassign`: nobody wears the strap `address` from now on. Result: the address and who wore it (absent:
/// nobody did).
public enum PersonUnassignCall: ControlCall {
    public static let method = ControlMethod.personUnassign
    public typealias Params = AddressParams

    public struct Result: Codable, Sendable, Hashable {
        public var address: String
        public var person: Person?

        public init(address: String, person: Person?) {
            self.address = address
            self.person = person
        }
    }
}
