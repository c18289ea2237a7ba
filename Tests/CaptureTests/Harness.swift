@testable import Capture
import BlueZ
import SourceEvents
import TestBus
import DBus
import Foundation
import HealthModel
import Logging
import Synchronization
import Testing

/// The fake bluetoothd shared by the BlueZ, capture and daemon tests.
let fakeScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("BlueZTests/Fixtures/fake_bluez.py").path

let addrA = "A0:9E:1A:7C:00:01"
let addrB = "A0:9E:1A:7C:00:02"

/// Collects capture events in the background; tests wait on predicates over the log.
final class EventLog: Sendable {
    private let events = Mutex<[SourceEvent]>([])
    func append(_ e: SourceEvent) { events.withLock { $0.append(e) } }
    var all: [SourceEvent] { events.withLock { $0 } }

    /// Waits until `predicate` holds on the log (polls every 10 ms).
    @discardableResult
    func wait(_ what: String, timeout: Double = 10, _ predicate: ([SourceEvent]) -> Bool) async throws -> [SourceEvent] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let snapshot = all
            if predicate(snapshot) { return snapshot }
            guard Date() < deadline else { throw TestFailure("timed out waiting for \(what); events: \(snapshot.map(describe))") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

func describe(_ e: SourceEvent) -> String {
    switch e {
    case .connected(let a, _, _): return "connected(\(a))"
    case .notification(let a, let b, _): return "notification(\(a), \(b))"
    case .disconnected(let a, let r, _): return "disconnected(\(a), \(r))"
    case .battery(let a, let p, _): return "battery(\(a), \(p))"
    }
}

extension [SourceEvent] {
    func connected(_ address: String) -> [DeviceInfo] {
        compactMap { if case .connected(address, let d?, _) = $0 { return d } else { return nil } }
    }
    func notifications(_ address: String) -> [[UInt8]] {
        compactMap { if case .notification(address, let b, _) = $0 { return b } else { return nil } }
    }
    func disconnects(_ address: String) -> [DisconnectReason] {
        compactMap { if case .disconnected(address, let r, _) = $0 { return r } else { return nil } }
    }
    func batteries(_ address: String) -> [Int] {
        compactMap { if case .battery(address, let p, _) = $0 { return p } else { return nil } }
    }
}

/// A private bus, a fake bluetoothd on it, a control connection, and a capture client.
final class Harness: @unchecked Sendable {  // set up once; `fake` replaced only by the test's own task
    let bus: PrivateBus
    var fake: Helper?
    let control: DBusConnection
    let client: DBusConnection
    let capture: BlueZCapture
    let log = EventLog()
    private var runTask: Task<Void, any Error>?
    private var drainTask: Task<Void, Never>?
    let devices: [String]
    /// More arguments for the fake (`--adapters`, `--slots`).
    let fakeArguments: [String]

    /// `lines`: records every line the capture client logs (at debug level and above).
    init(devices: [String] = [addrA], known: Bool = true, policy: CapturePolicy, lines: LineRecorder? = nil,
         fakeArguments: [String] = [],
         onEvent: (@Sendable (SourceEvent) -> Void)? = nil) async throws {
        bus = try PrivateBus()
        self.devices = devices
        self.fakeArguments = fakeArguments
        var logger = Logger(label: "bluez-tests")
        logger.logLevel = .warning
        control = try await DBusConnection.connect(address: bus.address, logger: logger)
        client = try await DBusConnection.connect(address: bus.address, logger: logger)
        let captureLogger = lines.map { recorder in Logger(label: "bluez-tests") { _ in recorder.handler() } } ?? logger
        capture = BlueZCapture(connection: client, policy: policy, logger: captureLogger, onEvent: onEvent)
        try await startFake(known: known)
    }

    /// Starts (or restarts) the fake and waits until it owns org.bluez.
    func startFake(known: Bool = true, staleConnected: Double? = nil) async throws {
        var args = ["--address", bus.address, "--devices", devices.joined(separator: ",")] + fakeArguments
        if known { args.append("--known") }
        if let staleConnected { args += ["--stale-connected", String(staleConnected)] }
        let script = try String(contentsOfFile: fakeScript, encoding: .utf8)
        fake = try Helper(script: script, name: "fake_bluez.py", in: bus.dir, arguments: args)
        let deadline = Date().addingTimeInterval(10)
        while try await control.nameOwner("org.bluez") == nil {
            guard Date() < deadline else { throw TestFailure("fake bluez did not start") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func killFake() {
        if let p = fake?.process, p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        fake = nil
    }

    /// `keepEvents: false` only drains the stream (benchmarks: no growing log).
    func start(keepEvents: Bool = true) {
        let capture = self.capture, log = self.log
        drainTask = Task {
            for await e in capture.events {
                if keepEvents { log.append(e) }
            }
        }
        runTask = Task { try await capture.run() }
    }

    func stop() async {
        runTask?.cancel()
        _ = await runTask?.result
        await drainTask?.value
        client.close()
        control.close()
        killFake()
    }

    @discardableResult
    func ctl(_ member: String, _ args: [DBusValue] = []) async throws -> [DBusValue] {
        try await control.call(destination: "org.bluez", path: "/org/heartd/fake", interface: "org.heartd.FakeBlueZ",
                               member: member, arguments: args, timeout: .seconds(5))
    }

    func notify(_ address: String, _ bytes: [UInt8]) async throws {
        try await ctl("Notify", [.string(address), .bytes(bytes)])
    }

    func stats(_ address: String) async throws -> [String: Int] {
        let reply = try await ctl("Stats", [.string(address)])
        return (reply.first?.stringKeyedDictionary ?? [:]).compactMapValues(\.int)
    }

    func waitStats(_ address: String, _ what: String, timeout: Double = 10,
                   _ predicate: ([String: Int]) -> Bool) async throws -> [String: Int] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let s = try await stats(address)
            if predicate(s) { return s }
            guard Date() < deadline else { throw TestFailure("timed out waiting for fake \(what): \(s)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Polls `probe` every 10 ms until it returns a value, or fails after `timeout` seconds.
func eventually<T>(_ what: String, timeout: Double = 10, _ probe: () async throws -> T?) async throws -> T {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        if let value = try await probe() { return value }
        guard Date() < deadline else { throw TestFailure("timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

func fastPolicy(_ addresses: [String] = [addrA], mode: SubscribeMode = .startNotify,
                silent: Double = 30, auto: Bool = false) -> CapturePolicy {
    CapturePolicy(allowList: Set(addresses), autoHeartRate: auto, subscribeMode: mode, silentStopTimeout: silent,
                  backoffInitial: 0.05, backoffMaximum: 0.4, connectTimeout: 5, resolveTimeout: 5)
}

let hrPayload: [UInt8] = [0x16, 72, 0x00, 0x04, 0x10, 0x04]
