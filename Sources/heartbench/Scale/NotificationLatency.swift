import Control
import DBus
import Foundation
import Glibc
import HeartQueries
import Logging
import Synchronization
import TestBus

/// `heartbench scale`'s probe of issue 31 item 2 ("reads never endanger capture"): a real heartd serving the scale
/// store captures one sensor of the project's fake BlueZ on a private bus; a notification is sent every `period`
/// (the fake's `Notify`) and timed to the `heart-rate` event a `watch` connection receives for it — first with no read,
/// then while the heaviest read (the whole range's `report`) runs back to back on its own connection. Each
/// notification waits for the previous one's event, so a late one shows as latency, never as a queue behind it.
struct NotificationLatency {
    static let address = "A0:9E:1A:7C:5C:01"
    /// Skin contact, a heart rate (40–189 bpm, changing every notification) and one RR interval of 1 s.
    static func payload(_ k: Int) -> [UInt8] { [0x16, UInt8(40 + k % 150), 0x00, 0x04] }

    struct Figures {
        var latencies: [Double]
        var lost: Int
        var reads: [Double]

        func quantile(_ q: Double) -> Double {
            let sorted = latencies.sorted()
            guard !sorted.isEmpty else { return .nan }
            return sorted[min(sorted.count - 1, Int((Double(sorted.count) * q).rounded(.up)) - 1)]
        }

        var text: String {
            "p99 \(Fmt.ms(quantile(0.99))) (p50 \(Fmt.ms(quantile(0.5))), max \(Fmt.ms(latencies.max() ?? .nan)); "
                + "\(latencies.count) notifications\(lost > 0 ? ", \(lost) without an event within 5 s" : ""))"
        }
    }

    let heartd: String
    let store: String
    let workspace: Workspace

    /// Both phases of `seconds` each, one notification every `period` seconds; `read` is the request a second
    /// connection repeats in the loaded phase.
    func measure(read: ControlRequest, seconds: Double, period: Double) async throws -> (idle: Figures, loaded: Figures) {
        var logger = Logger(label: "heartbench-scale-latency")
        logger.logLevel = .warning
        let bus = try PrivateBus()
        defer { bus.kill() }
        // Through a shell that stays: the fake dies with the thread that started it (PR_SET_PDEATHSIG), and this task's
        // thread may retire from the pool before the probe ends.
        let fake = Process()
        fake.executableURL = URL(fileURLWithPath: "/bin/sh")
        fake.arguments = ["-c", "/usr/bin/python3 \"$@\"; :", "sh", FakeBlueZControl.script, "--address", bus.address,
                          "--devices", Self.address, "--known"]
        fake.standardOutput = FileHandle.nullDevice
        fake.standardError = FileHandle(forWritingAtPath: Self.log(workspace.path("fake_bluez.log"))) ?? FileHandle.nullDevice
        try fake.run()
        defer {
            kill(fake.processIdentifier, SIGKILL)
            fake.waitUntilExit()
        }
        let connection = try await DBusConnection.connect(address: bus.address, logger: logger)
        defer { connection.close() }
        guard await eventually(timeout: 30, { try await connection.nameOwner("org.bluez") != nil }) else {
            throw BenchmarkError("the fake BlueZ did not start within 30 s")
        }
        let fakeControl = FakeBlueZControl(connection: connection)
        let socket = workspace.path("latency.sock"), config = workspace.path("latency.toml")
        _ = FileManager.default.createFile(atPath: config, contents: Data())
        let daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: heartd)
        daemon.arguments = ["--config", config, "--db", store, "--socket", socket, "--set", "control.group=\"\"",
                            "--set", "bluetooth.silent_stop_seconds=600", "--allow", Self.address,
                            "--log-target", "stderr", "--log-level", "warning"]
        daemon.environment = ProcessInfo.processInfo.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": bus.address]) { $1 }
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle(forWritingAtPath: Self.log(workspace.path("latency-heartd.log"))) ?? FileHandle.nullDevice
        try daemon.run()
        defer {
            kill(daemon.processIdentifier, SIGTERM)
            daemon.waitUntilExit()
        }
        let subscribed = await eventually(timeout: 60) {
            let stats = await fakeControl.stats(Self.address)
            return stats["subscribed"] == 1 || stats["fd_open"] == 1
        }
        guard subscribed, daemon.isRunning else { throw BenchmarkError("heartd did not subscribe to the fake sensor within 60 s") }
        let watch = try BenchConnection(path: socket)
        _ = try watch.roundTrip(WatchCall.request(id: 1, WatchCall.Params()))
        // A few notifications first: the series opens, the device event goes by.
        _ = try await probe(watch, fakeControl, seconds: 1, period: period)
        let idle = try await probe(watch, fakeControl, seconds: seconds, period: period)
        let reader = BackToBackReads(socket: socket, request: read)
        reader.start()
        let loaded = try await probe(watch, fakeControl, seconds: seconds, period: period)
        var loadedFigures = loaded
        loadedFigures.reads = reader.stop()
        return (idle, loadedFigures)
    }

    /// One notification every `period` for `seconds`, each timed from just before the fake is asked to send it to
    /// the `heart-rate` event that reports it.
    private func probe(_ watch: BenchConnection, _ fake: FakeBlueZControl, seconds: Double, period: Double) async throws -> Figures {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(seconds)
        var next = clock.now
        var figures = Figures(latencies: [], lost: 0, reads: [])
        while clock.now < end {
            try await clock.sleep(until: next)
            next = next + .seconds(period)
            let sent = clock.now
            _ = try await fake.call("Notify", [.string(Self.address), .bytes(Self.payload(figures.latencies.count + figures.lost))])
            let deadline = sent + .seconds(5)
            var seen = false
            while !seen, clock.now < deadline {
                guard watch.hasBufferedLine || Self.readable(watch.fd, ms: 5) else { continue }
                seen = String(decoding: try watch.readLine(), as: UTF8.self).contains(#""event":"\#(WatchEvent.heartRate.rawValue)""#)
            }
            if seen { figures.latencies.append((clock.now - sent).seconds) } else { figures.lost += 1 }
            if clock.now > next { next = clock.now }
        }
        return figures
    }

    /// Creates an empty log file at `path` and returns the path.
    static func log(_ path: String) -> String {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        return path
    }

    static func readable(_ fd: Int32, ms: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, ms) > 0
    }
}

/// A thread of its own that sends one request on its own control connection again and again until stopped, timing
/// each (the heavy read beside the probe).
final class BackToBackReads: Sendable {
    let socket: String
    let request: ControlRequest
    private let stopping = Atomic<Bool>(false)
    private let walls = Mutex<[Double]>([])
    private let done = Mutex<Bool>(false)

    init(socket: String, request: ControlRequest) {
        self.socket = socket
        self.request = request
    }

    func start() {
        Thread.detachNewThread { [self] in
            defer { done.withLock { $0 = true } }
            guard let connection = try? BenchConnection(path: socket) else { return }
            let clock = ContinuousClock()
            while !stopping.load(ordering: .relaxed) {
                let start = clock.now
                guard (try? connection.roundTrip(request)) != nil else { return }
                let wall = (clock.now - start).seconds
                walls.withLock { $0.append(wall) }
            }
        }
    }

    /// Stops after the read in progress and returns every read's wall time.
    func stop() -> [Double] {
        stopping.store(true, ordering: .relaxed)
        while !done.withLock({ $0 }) { usleep(10_000) }
        return walls.withLock { $0 }
    }
}
