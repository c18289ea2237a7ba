import HealthModel
import HeartQueries
import LiveFeed

/// What the web service reads of the live picture: `LiveFeed` in the program, a stub in tests.
public protocol LiveSource: Sendable {
    func snapshot() -> LiveSnapshot
    /// Bounded: a slow consumer loses its oldest updates.
    func updates(buffer: Int) -> AsyncStream<LiveUpdate>
}

extension LiveFeed: LiveSource {}

/// What the coach may change: heartd's `session.start` and `session.stop`, and the session list.
public protocol SessionControl: Sendable {
    func startSession(label: String?) async throws -> Session
    func stopSession(uuid: String?) async throws -> Session
    func sessions(limit: Int) async throws -> [Session]
}
