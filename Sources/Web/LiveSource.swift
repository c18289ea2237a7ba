import Foundation
import HealthModel
import HeartQueries
import LiveFeed

/// What the web service reads of the live picture: `LiveFeed` in the program, a stub in tests.
public protocol LiveSource: Sendable {
    func snapshot() -> LiveSnapshot
    /// Every change from now on, handed to `handler` in order as it is made (`LiveFeed.observe`: on the feed's own
    /// thread, no task woken per change); `handler` must not call back into the source.
    func observe(_ handler: @escaping @Sendable (LiveUpdate) -> Void) -> UUID
    /// Stops `observe`'s handler of `id`.
    func unobserve(_ id: UUID)
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
