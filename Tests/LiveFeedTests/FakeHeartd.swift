import Control
import Foundation
import HealthModel
import HeartQueries
import Ingest
import Logging
import Synchronization

/// A control socket that answers `status` and streams `watch` events the test sends: heartd as a network service
/// sees it, without capture.
final class FakeHeartd: ControlHandler {
    let path: String
    private let server: Mutex<ControlServer?>
    private let watchers = Mutex<[AsyncStream<ControlEvent>.Continuation]>([])
    let devices = Mutex<[DeviceStatus]>([])

    init(path: String) throws {
        self.path = path
        server = Mutex(nil)
        try start()
    }

    /// Listens (again) on `path`.
    func start() throws {
        let s = try ControlServer(configuration: ControlServerConfiguration(path: path), handler: self,
                                  logger: Logger(label: "fake-heartd") { _ in SwiftLogNoOpLogHandler() })
        s.start()
        server.withLock { $0 = s }
    }

    /// Stops listening and drops every client, as heartd exiting does.
    func stop() {
        watchers.withLock { w in
            for c in w { c.finish() }
            w.removeAll()
        }
        server.withLock { $0?.stop(); $0 = nil }
    }

    var watcherCount: Int { watchers.withLock { $0.count } }

    func send(_ message: WatchMessage) { send(message.controlEvent) }

    /// Any event, as a daemon of another shape might send it.
    func send(_ event: ControlEvent) {
        for c in watchers.withLock({ $0 }) { c.yield(event) }
    }

    func access(for method: String) -> ControlAccess? { ControlMethod(rawValue: method)?.access }
    func isStreaming(_ method: String) -> Bool { ControlMethod(rawValue: method)?.isStreaming ?? false }

    func handle(_ request: ControlRequest, peer: PeerCredentials) async -> ControlResponse {
        let status = DaemonStatus(version: "test", protocolVersion: ControlProtocol.version, pid: 1, mode: .simulate,
                                  started: Date(), uptimeSeconds: 1, capture: CaptureReport(source: .simulator),
                                  devices: devices.withLock { $0 }, store: StoreReport(path: nil, sizeBytes: 0, sink: SinkStatus()),
                                  watchers: watcherCount)
        return ControlResponse(id: request.id, result: JSONBridge.value(status))
    }

    func watch(_ request: ControlRequest, peer: PeerCredentials) async -> Result<AsyncStream<ControlEvent>, ControlError> {
        let (stream, continuation) = AsyncStream<ControlEvent>.makeStream()
        watchers.withLock { $0.append(continuation) }
        return .success(stream)
    }
}
