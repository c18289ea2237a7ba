import Control
import Foundation
import HeartQueries
import HeartStore
import Ingest
import SourceEvents

/// The daemon's control methods: live status, device allow/forget, `watch`, `export`, plus every store query
/// (`StoreQueries`). Read methods need the socket group, changing ones the admin group (see docs/CONTROL.md).
public struct DaemonControlHandler: ControlHandler {
    let pipeline: IngestPipeline
    let queries: StoreQueries
    let hub: LiveEventHub
    let capture: any CaptureControl
    let startedAt: Date
    let mode: DaemonMode
    /// The store writer; its counters are `status.store.sink`.
    let store: BackgroundSink?
    /// Whether the store could be opened (`status.store.state`); nil where the handler is given an open database.
    let daemonStore: DaemonStore?
    /// The active sessions' live statistics (`status.sessions`).
    let monitor: ActiveSessionMonitor
    /// `subscribe`'s subscribers.
    let changes: ChangeSubscriptions

    init(pipeline: IngestPipeline, database: HeartDatabase, hub: LiveEventHub, capture: any CaptureControl,
         mode: DaemonMode, store: BackgroundSink? = nil, daemonStore: DaemonStore? = nil, monitor: ActiveSessionMonitor,
         startedAt: Date = Date()) {
        self.store = store
        self.daemonStore = daemonStore
        self.monitor = monitor
        self.changes = ChangeSubscriptions(database: database)
        self.pipeline = pipeline
        self.queries = StoreQueries(database: database)
        self.hub = hub
        self.capture = capture
        self.mode = mode
        self.startedAt = startedAt
    }

    static let daemonMethods: [String: ControlAccess] = [
        "status": .read, "watch": .read, "export": .read, "subscribe": .read, "allow": .admin, "forget": .admin,
    ]

    public func access(for method: String) -> ControlAccess? {
        Self.daemonMethods[method] ?? StoreQueries.methods[method]
    }

    public func isStreaming(_ method: String) -> Bool { method == "watch" || method == "export" || method == "subscribe" }

    public func handle(_ request: ControlRequest, peer: PeerCredentials) async -> ControlResponse {
        do {
            let result: JSONValue = switch request.method {
            case "status": JSONBridge.value(await status())
            case "devices": try await devices(request.params)
            case "allow": try await changePolicy(request.params, allow: true)
            case "forget": try await changePolicy(request.params, allow: false)
            case "session.start": try startSession(request.params)
            case "session.stop": try await stopSession(request.params)
            default: try OpenSeriesQueries(queries: queries) { pipeline.openSeries() }.handle(request.method, request.params)
            }
            return ControlResponse(id: request.id, result: result)
        } catch let error as ControlError {
            return ControlResponse(id: request.id, error: error)
        } catch {
            return ControlResponse(id: request.id, error: ControlError(.internalError, "\(error)"))
        }
    }

    public func watch(_ request: ControlRequest, peer: PeerCredentials) async -> Result<AsyncStream<ControlEvent>, ControlError> {
        do throws(ControlError) {
            switch request.method {
            case "watch": return .success(try watchStream(request.params))
            case "export": return .success(queries.exportStream(try queries.exportQuery(request.params)))
            case "subscribe": return .success(try subscribeStream(request.params))
            default: throw ControlError(.unknownMethod, "method '\(request.method)' does not stream")
            }
        } catch {
            return .failure(error)
        }
    }

    /// Stores the session, then rotates the open series of its devices, which are tagged from then on.
    func startSession(_ params: [String: JSONValue]) throws(ControlError) -> JSONValue {
        let result = try queries.handle("session.start", params)
        try applyActiveSessions(pipeline: pipeline, database: queries.database, monitor: monitor)
        return result
    }

    /// Rotates the open series of the session's devices out of it, waits (up to 5 s) for the store writer to save
    /// them, then ends the session in the store, so its statistics include its last series.
    func stopSession(_ params: [String: JSONValue]) async throws(ControlError) -> JSONValue {
        let p = QueryParameters(params)
        let uuid: UUID? = params["uuid"] == nil ? nil : try p.uuid()
        do {
            let active = try queries.database.sessions(SessionFilter(activeOnly: true))
            if let uuid, active.contains(where: { $0.uuid == uuid }) {
                pipeline.setActiveSessions(active.filter { $0.uuid != uuid })
            } else if uuid == nil, active.count == 1 {
                pipeline.setActiveSessions([])
            }
        } catch {
            throw ControlError(.unavailable, "store: active sessions: \(error)")
        }
        _ = await store?.drain(timeout: 5)
        let result = try queries.handle("session.stop", params)
        try applyActiveSessions(pipeline: pipeline, database: queries.database, monitor: monitor)
        if let stopped = result["uuid"]?.stringValue.flatMap(UUID.init(uuidString:)) {
            hub.endSession(stopped, at: result["end"] ?? .null)
        }
        return result
    }

    func status() async -> DaemonStatus {
        let db = queries.database
        let pipelineSink = await pipeline.sinkStatus()
        let sink = store?.status ?? pipelineSink
        let storeReport = daemonStore?.report(sink: sink)
            ?? StoreReport(path: db.path, sizeBytes: Int(db.fileSize()), sink: sink)
        return DaemonStatus(
            version: HeartdVersion.string, protocolVersion: ControlProtocol.version, pid: Int(getpid()), mode: mode,
            started: startedAt, uptimeSeconds: Date().timeIntervalSince(startedAt).rounded(),
            capture: await capture.status(), devices: await pipeline.status(),
            store: storeReport,
            watchers: hub.watcherCount + changes.subscriberCount, sessions: monitor.status())
    }

    func devices(_ params: [String: JSONValue]) async throws -> JSONValue {
        var stored = try queries.handle("devices", params)
        let live = JSONBridge.value(await pipeline.status())
        if case .object(var o) = stored {
            o["live"] = live
            stored = .object(o)
        }
        return stored
    }

    func changePolicy(_ params: [String: JSONValue], allow: Bool) async throws(ControlError) -> JSONValue {
        let address = try QueryParameters(params).requiredString("address").uppercased()
        guard DeviceAddress.isValid(address) else {
            throw ControlError(.invalidParams, "'\(address)' is not a Bluetooth address (AA:BB:CC:DD:EE:FF)")
        }
        if allow { try await capture.allow(address) } else { try await capture.forget(address) }
        return .object([allow ? "allowed" : "forgotten": .string(address)])
    }
}
