import Control
import Foundation
import HealthModel
import HeartQueries
import HeartStore
import Ingest
import SourceEvents

/// The daemon's control methods: live status, device allow/forget, `watch`, `export`, plus every store query
/// (`StoreQueries`), dispatched on `ControlMethod`, which also says each one's access class and whether it streams
/// (see docs/CONTROL.md).
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
    /// Where store reads run: threads of their own at a lower priority, at most `[control] max_reads` at once.
    let reads: StoreReadThreads
    /// The HRV analyses of stopped sessions, computed after `session.stop` replied.
    let analyses: SessionAnalyses

    init(pipeline: IngestPipeline, database: HeartDatabase, hub: LiveEventHub, capture: any CaptureControl,
         mode: DaemonMode, store: BackgroundSink? = nil, daemonStore: DaemonStore? = nil, monitor: ActiveSessionMonitor,
         maxReads: Int = 4, startedAt: Date = Date()) {
        self.reads = StoreReadThreads(limit: maxReads)
        self.analyses = SessionAnalyses(database: database, logger: hub.logger)
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

    public func access(for method: String) -> ControlAccess? {
        ControlMethod(rawValue: method)?.access
    }

    public func isStreaming(_ method: String) -> Bool { ControlMethod(rawValue: method)?.isStreaming ?? false }

    public func handle(_ request: ControlRequest, peer: PeerCredentials) async -> ControlResponse {
        do {
            guard let method = ControlMethod(rawValue: request.method) else { throw ControlMethod.unknown(request.method) }
            let result: JSONValue = switch method {
            case .status: JSONBridge.value(await status())
            case .devices: JSONBridge.value(try await devices())
            case .allow: JSONBridge.value(AllowCall.Result(allowed: try await changePolicy(request.params, allow: true)))
            case .forget: JSONBridge.value(ForgetCall.Result(forgotten: try await changePolicy(request.params, allow: false)))
            case .sessionStart: JSONBridge.value(try startSession(request.params))
            case .sessionStop: JSONBridge.value(try await stopSession(request.params))
            case .personSet, .personRemove, .personAssign, .personUnassign: try changePeople(method, request.params)
            case .nearby: JSONBridge.value(try await nearby(request.params))
            case .series, .show, .beats, .quantities, .stats, .hrv, .changes, .sessions, .sessionShow, .report, .delete, .people:
                try await reads.run { [queries, pipeline] () throws(ControlError) -> JSONValue in
                    try OpenSeriesQueries(queries: queries) { pipeline.openSeries() }.handle(method, request.params)
                }
            case .export, .watch, .subscribe: throw ControlError(.unknownMethod, "method '\(request.method)' streams")
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
            guard let method = ControlMethod(rawValue: request.method) else { throw ControlMethod.unknown(request.method) }
            switch method {
            case .watch: return .success(try watchStream(request.params))
            case .export: return .success(queries.exportStream(try queries.exportQuery(request.params)))
            case .subscribe: return .success(try subscribeStream(request.params))
            case .status, .devices, .series, .show, .beats, .quantities, .stats, .hrv, .changes, .sessionStart, .sessionStop,
                 .sessions, .sessionShow, .report, .allow, .forget, .delete, .people, .personSet, .personRemove, .personAssign, .personUnassign, .nearby:
                throw ControlError(.unknownMethod, "method '\(request.method)' does not stream")
            }
        } catch {
            return .failure(error)
        }
    }

    /// Stores the session, then rotates the open series of its devices, which are tagged from then on.
    func startSession(_ params: [String: JSONValue]) throws(ControlError) -> Session {
        let result = try queries.mappingErrors { try queries.sessionStart(QueryParameters(params)) }
        try applyActiveSessions(pipeline: pipeline, database: queries.database, monitor: monitor)
        hub.publish(.sessionStarted(.init(session: result)))
        return result
    }

    /// Rotates the open series of the session's devices out of it, waits (up to 5 s) for the store writer to save
    /// them, then ends the session in the store, so its statistics include its last series, and replies: the
    /// statistics without the HRV analysis, which `analyses` adds to the stored session right after (docs/CONTROL.md).
    func stopSession(_ params: [String: JSONValue]) async throws(ControlError) -> Session {
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
        let result = try queries.mappingErrors { try queries.sessionStop(QueryParameters(params), analysis: false) }
        analyses.schedule(result.uuid)
        try applyActiveSessions(pipeline: pipeline, database: queries.database, monitor: monitor)
        hub.publish(.sessionStopped(.init(session: result)))
        hub.endSession(result.uuid, at: result.end)
        return result
    }

    /// Changes the people in the store, then tells the pipeline who wears which strap (the open series of a strap
    /// whose wearer changed rotate and carry the new tags) and `watch` that people changed.
    func changePeople(_ method: ControlMethod, _ params: [String: JSONValue]) throws(ControlError) -> JSONValue {
        let result = try queries.handle(method, params)
        try applyPeople(pipeline: pipeline, database: queries.database)
        hub.publishPeopleChanged()
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

    func devices() async throws(ControlError) -> DevicesCall.Result {
        var result = try queries.mappingErrors { try queries.devices() }
        result.live = await pipeline.status()
        return result
    }

    /// Scans (`NearbyCall.secondsRange`) and lists what capture does not take, with the person assigned to each.
    func nearby(_ params: [String: JSONValue]) async throws(ControlError) -> NearbyCall.Result {
        let p = try StoreQueries.decode(NearbyCall.Params.self, params)
        let seconds = p.seconds ?? NearbyCall.defaultSeconds
        guard NearbyCall.secondsRange.contains(seconds) else {
            throw ControlError(.invalidParams, "'seconds' must be \(NearbyCall.secondsRange.lowerBound) to \(NearbyCall.secondsRange.upperBound)")
        }
        var sensors = try await capture.nearby(seconds: seconds)
        let people = (try? queries.database.people()) ?? []
        for i in sensors.indices { sensors[i].person = people.first { $0.strap == sensors[i].address } }
        return NearbyCall.Result(devices: sensors, seconds: seconds)
    }

    /// Allows or forgets the `address` of `params`; returns it as stored (upper case).
    func changePolicy(_ params: [String: JSONValue], allow: Bool) async throws(ControlError) -> String {
        let address = try QueryParameters(params).requiredString("address").uppercased()
        guard DeviceAddress.isValid(address) else {
            throw ControlError(.invalidParams, "'\(address)' is not a Bluetooth address (AA:BB:CC:DD:EE:FF)")
        }
        if allow { try await capture.allow(address) } else { try await capture.forget(address) }
        return address
    }
}
