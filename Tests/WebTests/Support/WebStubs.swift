import Foundation
import HealthModel
import HeartQueries
import Hummingbird
import LiveFeed
import Logging
import Synchronization
import Web
import WebConfig

/// A live picture the test sets, and the observers it hands updates to.
final class StubLiveSource: LiveSource {
    private let state = Mutex<(snapshot: LiveSnapshot, observers: [UUID: @Sendable (LiveUpdate) -> Void])>(
        (LiveSnapshot(daemonReachable: true, devices: [], activeSessions: [], status: nil), [:]))

    init(devices: [LiveDevice] = []) {
        state.withLock { $0.snapshot.devices = devices }
    }

    func snapshot() -> LiveSnapshot { state.withLock { $0.snapshot } }

    func observe(_ handler: @escaping @Sendable (LiveUpdate) -> Void) -> UUID {
        let id = UUID()
        state.withLock { $0.observers[id] = handler }
        return id
    }

    func unobserve(_ id: UUID) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    var subscribers: Int { state.withLock { $0.observers.count } }

    func send(_ update: LiveUpdate) {
        let observers = state.withLock { state in
            if case .device(let device) = update {
                state.snapshot.devices.removeAll { $0.address == device.address }
                state.snapshot.devices.append(device)
                state.snapshot.devices.sort { $0.address < $1.address }
            }
            return Array(state.observers.values)
        }
        for observer in observers { observer(update) }
    }
}

/// Records the coach's calls instead of asking heartd.
final class StubSessionControl: SessionControl {
    let started = Mutex<[String?]>([])
    let stopped = Mutex<[String?]>([])

    func startSession(label: String?) async throws -> Session {
        started.withLock { $0.append(label) }
        return Session(label: label, start: Date())
    }

    func stopSession(uuid: String?) async throws -> Session {
        stopped.withLock { $0.append(uuid) }
        return Session(start: Date(), end: Date())
    }

    static let finished = Session(label: "<i>finished</i>", start: Date(timeIntervalSince1970: 1_700_000_000),
                                  end: Date(timeIntervalSince1970: 1_700_003_725))

    func sessions(limit: Int) async throws -> [Session] {
        [Self.finished, Session(label: "<b>earlier</b>", start: Date(timeIntervalSince1970: 1_700_010_000))]
    }

    func report(session: UUID) async throws -> String { "<!doctype html><title>report</title><p>\(session)</p>" }

    func export(session: UUID, format: ExportFormat) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            continuation.yield(Array("kind,series\n".utf8))
            continuation.yield(Array("beat,\(session)\n".utf8))
            continuation.finish()
        }
    }
}

/// A web application over stubs, with the credentials a test asks for.
struct WebFixture {
    static let token = "viewer-token-0123456789"
    static let password = "correct horse battery"
    static let passwordHash = WebCredentials.hash(password, cost: 4)

    let source: StubLiveSource
    let control = StubSessionControl()
    let fanout: LiveFanout
    let web: WebApplication

    init(devices: [LiveDevice] = [], token: String? = Self.token, coach: Bool = true, host: String = "127.0.0.1",
         clientBuffer: Int = 64, hrmaxDevices: [String] = [], window: Duration = .milliseconds(50)) {
        source = StubLiveSource(devices: devices)
        var settings = WebSettings()
        settings.host = host
        settings.port = 0
        settings.hrmaxDefault = 200
        settings.hrmaxDevices = hrmaxDevices
        settings.clientBuffer = clientBuffer
        settings.loginAttemptsPerMinute = 3
        let logger = Logger(label: "web-test")
        fanout = LiveFanout(source: source, hrmax: HRMaxTable(defaultBPM: settings.hrmaxDefault, byDevice: settings.hrmaxByDevice),
                            clientBuffer: clientBuffer, window: window, logger: logger)
        web = WebApplication(settings: settings,
                             credentials: WebCredentials(viewerToken: token, coachPasswordHash: coach ? Self.passwordHash : nil),
                             fanout: fanout, control: control, logger: logger)
    }

    static func device(_ address: String, name: String? = nil, bpm: Int? = 120, state: LiveDeviceState = .streaming) -> LiveDevice {
        LiveDevice(address: address, info: name.map { DeviceInfo(name: $0) }, state: state, connected: state != .disconnected,
                   bpm: bpm, contact: true, batteryPercent: 80, lastNotification: Date(), rmssdMs: 42.25)
    }
}

enum ActiveSessionStatusFixture {
    static func make(label: String?) -> ActiveSessionStatus {
        ActiveSessionStatus(uuid: UUID(), label: label, start: Date(), devices: [], elapsedSeconds: 0, beats: 0,
                            currentBPM: nil, averageBPM: nil, rmssdMs: nil)
    }
}
