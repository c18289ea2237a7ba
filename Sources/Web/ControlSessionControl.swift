import Control
import Foundation
import HealthModel
import HeartQueries
import WebConfig

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

    public func report(session: UUID) async throws -> String {
        try await withClient { try await $0.call(ReportCall.self, .init(session: session.uuidString)).html }
    }

    /// The client stays open while the file streams, and closes when it ends or the download is abandoned.
    public func export(session: UUID, format: ExportFormat) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        let client = try ControlClient(path: socketPath)
        let events: AsyncThrowingStream<ControlEvent, any Error>
        do {
            events = try await client.stream(ExportCall.self, .init(.init(format: format), range: .init(session: session.uuidString)))
        } catch {
            client.close()
            throw error
        }
        return AsyncThrowingStream { continuation in
            let task = Task {
                defer { client.close() }
                do {
                    // heartd keeps the connection open after the export's last event: stop reading there.
                    events: for try await event in events {
                        switch ExportEvent(rawValue: event.name) {
                        case .chunk:
                            if let base64 = event.fields["base64"]?.stringValue {
                                guard let bytes = Data(base64Encoded: base64) else { throw WebError(.export, "a chunk is not base64") }
                                continuation.yield(Array(bytes))
                            } else {
                                continuation.yield(Array((event.fields["text"]?.stringValue ?? "").utf8))
                            }
                        case .end: break events
                        case .error: throw WebError(.export, event.fields["message"]?.stringValue ?? "export failed")
                        case .progress, nil: continue
                        }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The events of heartd's `export` stream (docs/CONTROL.md).
    private enum ExportEvent: String {
        case chunk, progress, end, error
    }

    private func withClient<T: Sendable>(_ body: (ControlClient) async throws -> T) async throws -> T {
        let client = try ControlClient(path: socketPath)
        defer { client.close() }
        return try await body(client)
    }
}
