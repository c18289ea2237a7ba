import Control
import Foundation
import HealthModel
import HeartQueries

/// `SessionControl` over heartd's control socket: one short connection per call (a coach's click), so that a
/// broken connection never outlives the request.
public struct ControlSessionControl: SessionControl {
    public let socketPath: String

    public init(socketPath: String) { self.socketPath = socketPath }

    public func startSession(label: String?) async throws -> Session {
        try await withClient { try await $0.call(SessionStartCall.self, .init(label: label)) }
    }

    public func stopSession(uuid: String?) async throws -> Session {
        try await withClient { try await $0.call(SessionStopCall.self, .init(uuid: uuid)) }
    }

    public func sessions(limit: Int) async throws -> [Session] {
        try await withClient { try await $0.call(SessionsCall.self, .init(limit: limit)).sessions }
    }

    private func withClient<T: Sendable>(_ body: (ControlClient) async throws -> T) async throws -> T {
        let client = try ControlClient(path: socketPath)
        defer { client.close() }
        return try await body(client)
    }
}
