import Foundation
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

/// What the coach may change: heartd's `session.start` and `session.stop`; and what the Sessions page reads: the
/// session list, a session's `report` and its `export`.
public protocol SessionControl: Sendable {
    func startSession(label: String?) async throws -> Session
    func stopSession(uuid: String?) async throws -> Session
    func sessions(limit: Int) async throws -> [Session]
    /// The session's report: one self-contained HTML page (`report`, docs/CONTROL.md).
    func report(session: UUID) async throws -> String
    /// The session's samples as a file in `format`, piece by piece as heartd's `export` streams them.
    func export(session: UUID, format: ExportFormat) async throws -> AsyncThrowingStream<[UInt8], any Error>
}
