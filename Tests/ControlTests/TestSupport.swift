import Glibc
import Foundation
import Logging
import Synchronization
@testable import Control

/// Broadcasts events to every `watch` subscriber (test double for the daemon's event hub).
final class EventHub: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<ControlEvent>.Continuation]>([:])

    func subscribe() -> AsyncStream<ControlEvent> {
        let (stream, continuation) = AsyncStream<ControlEvent>.makeStream(bufferingPolicy: .unbounded)
        let key = UUID()
        subscribers.withLock { $0[key] = continuation }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { $0[key] = nil } }
        return stream
    }

    var count: Int { subscribers.withLock { $0.count } }

    func publish(_ event: ControlEvent) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }
}

/// A handler with one method of each kind.
struct TestHandler: ControlHandler {
    let hub = EventHub()

    func access(for method: String) -> ControlAccess? {
        switch method {
        case "echo", "slow", "typed", "watch": return .read
        case "admin.reset": return .admin
        default: return nil
        }
    }

    func isStreaming(_ method: String) -> Bool { method == "watch" }

    func handle(_ request: ControlRequest, peer: PeerCredentials) async -> ControlResponse {
        switch request.method {
        case "echo":
            return ControlResponse(id: request.id, result: .object(request.params))
        case "slow":
            try? await Task.sleep(for: .milliseconds(100))  // a method that takes its time, on purpose
            return ControlResponse(id: request.id, result: "slow done")
        case "typed":
            guard let n = request.params["n"]?.intValue else {
                return ControlResponse(id: request.id, error: ControlError(.invalidParams, "\"n\" must be an integer"))
            }
            return ControlResponse(id: request.id, result: .int(n * 2))
        case "admin.reset":
            return ControlResponse(id: request.id, result: ["reset": true, "uid": .int(Int(peer.uid))])
        default:
            return ControlResponse(id: request.id, error: ControlError(.internalError, "unexpected"))
        }
    }

    func watch(_ request: ControlRequest, peer: PeerCredentials) async -> Result<AsyncStream<ControlEvent>, ControlError> {
        .success(hub.subscribe())
    }
}

/// A server on a fresh socket in its own temp directory; stopped and removed on deinit.
final class TestServer {
    let directory: String
    let path: String
    let handler = TestHandler()
    let server: ControlServer

    init(_ configure: (inout ControlServerConfiguration) -> Void = { _ in }) throws {
        directory = NSTemporaryDirectory() + "ctl-\(UUID().uuidString.prefix(8))"
        path = directory + "/sub/control.sock"
        var configuration = ControlServerConfiguration(path: path)
        configure(&configuration)
        var logger = Logger(label: "test") { label in
            ProcessInfo.processInfo.environment["HEARTD_TEST_LOG"] == nil ? SwiftLogNoOpLogHandler() as any LogHandler : StreamLogHandler.standardError(label: label)
        }
        logger.logLevel = .debug
        server = try ControlServer(configuration: configuration, handler: handler, logger: logger)
        server.start()
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    func client() throws -> ControlClient { try ControlClient(path: path, timeout: .seconds(5)) }

    /// Waits (bounded) until `condition` holds.
    func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<200 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}

/// A raw line socket whose blocking I/O runs on its own queue, so tests never block the
/// cooperative thread pool the server's handler tasks need (only 2 threads on a 2-core machine).
///
/// `@unchecked Sendable`: the wrapped socket is only used on `queue`.
final class RawClient: @unchecked Sendable {
    private let socket: LineSocket
    private let queue = DispatchQueue(label: "test.raw-client")

    init(path: String) throws { socket = try LineSocket(path: path) }

    func write(_ bytes: [UInt8], newline: Bool = true) async throws {
        try await onQueue { try self.socket.write(bytes, newline: newline) }
    }

    func readLine(timeout: Duration = .seconds(5)) async throws -> [UInt8] {
        try await onQueue { try self.socket.readLine(timeout: timeout) }
    }

    func readResponse() async throws -> ControlResponse {
        try JSONLine.decode(ControlResponse.self, from: try await readLine())
    }

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}

/// Runs a process to completion off the cooperative pool; returns its standard output.
func runProcess(_ executable: String, _ arguments: [String]) async throws -> String {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            do { try process.run() } catch { continuation.resume(throwing: error); return }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            continuation.resume(returning: String(decoding: data, as: UTF8.self))
        }
    }
}
