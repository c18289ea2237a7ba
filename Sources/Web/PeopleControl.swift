import Control
import Foundation
import HealthModel
import HeartQueries

/// What the People and Nearby pages ask of heartd: the people, a person saved, a strap assigned or released, a scan
/// and a sensor allowed.
public protocol PeopleControl: Sendable {
    func people() async throws -> [Person]
    func savePerson(_ params: PersonSetCall.Params) async throws -> Person
    func assign(person: String, address: String) async throws -> Person
    func unassign(address: String) async throws
    func nearby(seconds: Double) async throws -> NearbyCall.Result
    func allow(address: String) async throws
}

/// `PeopleControl` over heartd's control socket: one short connection per call (a coach's click). A scan waits up to
/// its own length plus the client's usual 10 s.
public struct ControlPeopleControl: PeopleControl {
    public let socketPath: String

    public init(socketPath: String) { self.socketPath = socketPath }

    public func people() async throws -> [Person] {
        try await withClient { try await $0.call(PeopleCall.self, NoParams()).people }
    }

    public func savePerson(_ params: PersonSetCall.Params) async throws -> Person {
        try await withClient { try await $0.call(PersonSetCall.self, params) }
    }

    public func assign(person: String, address: String) async throws -> Person {
        try await withClient { try await $0.call(PersonAssignCall.self, .init(person: person, address: address)) }
    }

    public func unassign(address: String) async throws {
        _ = try await withClient { try await $0.call(PersonUnassignCall.self, AddressParams(address: address)) }
    }

    public func nearby(seconds: Double) async throws -> NearbyCall.Result {
        try await withClient(timeout: .seconds(seconds + 10)) { try await $0.call(NearbyCall.self, .init(seconds: seconds)) }
    }

    public func allow(address: String) async throws {
        _ = try await withClient { try await $0.call(AllowCall.self, AddressParams(address: address)) }
    }

    private func withClient<T: Sendable>(timeout: Duration = .seconds(10), _ body: (ControlClient) async throws -> T) async throws -> T {
        let client = try ControlClient(path: socketPath, timeout: timeout)
        defer { client.close() }
        return try await body(client)
    }
}

/// No heartd to ask (a web application built for tests of other pages): every call fails.
public struct NoPeopleControl: PeopleControl {
    public init() {}

    struct Unavailable: Error, CustomStringConvertible {
        var description: String { "people are not available here" }
    }

    public func people() async throws -> [Person] { throw Unavailable() }
    public func savePerson(_ params: PersonSetCall.Params) async throws -> Person { throw Unavailable() }
    public func assign(person: String, address: String) async throws -> Person { throw Unavailable() }
    public func unassign(address: String) async throws { throw Unavailable() }
    public func nearby(seconds: Double) async throws -> NearbyCall.Result { throw Unavailable() }
    public func allow(address: String) async throws { throw Unavailable() }
}
