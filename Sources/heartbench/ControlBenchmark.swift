import Foundation
import Posix
import Synchronization
import Glibc

/// `heartbench control`: runs the real `heartd --simulate` in a temporary directory and measures the control
/// socket: `status` round-trip latency (one client, sequential calls) and `watch` fan-out (ingest rate the
/// daemon reports and events each watcher receives) with 0 versus N watchers connected. Prints a markdown table.
///
/// Options: `--heartd PATH` (default: `heartd` next to this executable), `--calls 2000`, `--watchers 50`,
/// `--seconds 3` (measurement window), `--speed 1e9` (simulator speed; 1e9 is effectively unthrottled),
/// `--latency-seconds 20` (time budget for the status calls).
public func runControlBenchmark(arguments: [String]) async throws {
    let options = try ControlBenchmarkOptions(arguments)
    // A fresh daemon per phase, so the loaded phase inherits no backlog and each shutdown is timed on its own.
    func phase(watchers: Int) throws -> ControlBenchmarkPhase {
        let run = try BenchDaemon(heartd: options.heartd, speed: options.speed)
        var result: ControlBenchmarkPhase
        do {
            result = try ControlBenchmarkPhase.measure(socket: run.socket, watchers: watchers, options: options)
        } catch {
            _ = run.stop()
            throw error
        }
        result.alive = run.isRunning
        result.shutdownSeconds = run.stop()
        return result
    }
    let baseline = try phase(watchers: 0)
    let loaded = try phase(watchers: options.watchers)
    print(ControlBenchmarkPhase.table(baseline, loaded, options: options))
}

struct ControlBenchmarkError: Error, CustomStringConvertible {
    let description: String
}

struct ControlBenchmarkOptions {
    var heartd: String
    var calls = 2000
    var watchers = 50
    var seconds = 3.0
    var speed = 1e9
    var latencySeconds = 20.0

    init(_ arguments: [String]) throws {
        var heartd: String?
        var i = 0
        func value() throws -> String {
            i += 1
            guard i < arguments.count else { throw ControlBenchmarkError(description: "\(arguments[i - 1]) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--heartd": heartd = try value()
            case "--calls": calls = Int(try value()) ?? calls
            case "--watchers": watchers = Int(try value()) ?? watchers
            case "--seconds": seconds = Double(try value()) ?? seconds
            case "--speed": speed = Double(try value()) ?? speed
            case "--latency-seconds": latencySeconds = Double(try value()) ?? latencySeconds
            default: throw ControlBenchmarkError(description: "unknown option \(arguments[i]) (--heartd, --calls, --watchers, --seconds, --speed, --latency-seconds)")
            }
            i += 1
        }
        let sibling = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("heartd").path
        self.heartd = heartd ?? sibling
        guard FileManager.default.isExecutableFile(atPath: self.heartd) else {
            throw ControlBenchmarkError(description: "no heartd executable at \(self.heartd) (use --heartd PATH)")
        }
        guard calls > 0, watchers >= 0, seconds > 0, speed > 0 else {
            throw ControlBenchmarkError(description: "--calls, --seconds and --speed must be positive")
        }
    }
}

/// `heartd --simulate` in a temporary directory, killed and removed by `stop()`.
final class BenchDaemon {
    let process = Process()
    let dir: URL
    let socket: String

    init(heartd: String, speed: Double) throws {
        dir = URL(fileURLWithPath: "/tmp").appendingPathComponent("heartbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        socket = dir.appendingPathComponent("control.sock").path
        let config = dir.appendingPathComponent("heartd.toml").path
        _ = FileManager.default.createFile(atPath: config, contents: Data())
        process.executableURL = URL(fileURLWithPath: heartd)
        process.arguments = ["--simulate", "--simulate-speed", "\(speed)", "--config", config,
                             "--db", dir.appendingPathComponent("heart.db").path, "--socket", socket,
                             "--set", "control.group=\"\"", "--log-target", "stderr", "--log-level", "warning"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let c = try? BenchConnection(path: socket), (try? c.roundTrip(#"{"id":0,"method":"hello"}"#)) != nil { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        _ = stop()
        throw ControlBenchmarkError(description: "heartd did not start answering on \(socket)")
    }

    var isRunning: Bool { process.isRunning }

    /// SIGTERM (SIGKILL after 30 s); returns the seconds from SIGTERM to exit (nil: it had to be killed).
    @discardableResult
    func stop() -> Double? {
        var took: Double?
        if process.isRunning {
            let sent = Date()
            kill(process.processIdentifier, SIGTERM)
            let deadline = sent.addingTimeInterval(30)
            while process.isRunning, Date() < deadline { usleep(5_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                while process.isRunning { usleep(5_000) }
            } else {
                took = Date().timeIntervalSince(sent)
            }
        }
        try? FileManager.default.removeItem(at: dir)
        return took
    }
}

/// A blocking Unix-socket line connection, as thin as possible so the numbers are the daemon's.
final class BenchConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0, let address = try? UnixSocketAddress(path, allowAbstract: false) else {
            if fd >= 0 { close(fd) }
            throw ControlBenchmarkError(description: "cannot create a socket for \(path)")
        }
        guard address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            let text = errnoText()
            close(fd)
            throw ControlBenchmarkError(description: "connect \(path): \(text)")
        }
    }

    deinit { close(fd) }

    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ControlBenchmarkError(description: "write failed: errno \(errno)") }
            offset += n
        }
    }

    /// Blocks until one full line arrived and returns it.
    func readLine() throws -> ArraySlice<UInt8> {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = buffer[..<nl]
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw ControlBenchmarkError(description: "connection closed") }
            buffer += chunk[..<n]
        }
    }

    /// Whether a complete line already waits in the buffer (poll(2) on `fd` cannot see it).
    var hasBufferedLine: Bool { buffer.contains(10) }

    func roundTrip(_ line: String) throws -> ArraySlice<UInt8> {
        try send(line)
        return try readLine()
    }
}

/// Watch connections read by one polling thread that only counts event lines (so 50 watchers cost the
/// benchmark one thread, not 50).
final class WatchFanout: Sendable {
    struct Counts: Sendable {
        var events: [Int]
        var closed: [Bool]
        var stop = false
    }

    let fds: [Int32]
    let state: Mutex<Counts>

    init(socket: String, count: Int) throws {
        var fds: [Int32] = []
        for _ in 0..<count {
            let c = try BenchConnection(path: socket)
            _ = try c.roundTrip(#"{"id":1,"method":"watch"}"#)
            // Keep the descriptor past the connection object's lifetime.
            fds.append(dup(c.fd))
        }
        self.fds = fds
        state = Mutex(Counts(events: Array(repeating: 0, count: count), closed: Array(repeating: false, count: count)))
    }

    func start() {
        let fds = self.fds
        Thread.detachNewThread { [self] in
            var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while !state.withLock({ $0.stop }) {
                guard poll(&polls, nfds_t(polls.count), 100) > 0 else { continue }
                for i in polls.indices where polls[i].revents != 0 {
                    let n = chunk.withUnsafeMutableBytes { recv(polls[i].fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    if n <= 0 {
                        if n == 0 || (errno != EAGAIN && errno != EINTR) {
                            state.withLock { $0.closed[i] = true }
                            polls[i].fd = -1
                        }
                        continue
                    }
                    let lines = chunk[..<n].reduce(0) { $1 == 10 ? $0 + 1 : $0 }
                    state.withLock { $0.events[i] += lines }
                }
            }
        }
    }

    func snapshot() -> Counts { state.withLock { $0 } }

    func stop() {
        state.withLock { $0.stop = true }
        usleep(200_000)
        for fd in fds { close(fd) }
    }
}

/// One measurement: ingest rate over a window, then sequential `status` latency, with `watchers` connected.
struct ControlBenchmarkPhase {
    var watchers: Int
    var notificationsPerSecond: Double
    var beatsPerSecond: Double
    var latenciesMs: [Double]
    var eventsPerWatcher: [Int]
    var watchersDropped: Int
    var alive = true
    var shutdownSeconds: Double?

    static func measure(socket: String, watchers: Int, options: ControlBenchmarkOptions) throws -> ControlBenchmarkPhase {
        let fanout = watchers > 0 ? try WatchFanout(socket: socket, count: watchers) : nil
        fanout?.start()
        let client = try BenchConnection(path: socket)
        usleep(1_000_000)  // warm-up: watchers connected, rates settled
        let s0 = try status(client), c0 = fanout?.snapshot(), t0 = Date()
        usleep(UInt32(options.seconds * 1_000_000))
        let s1 = try status(client), c1 = fanout?.snapshot()
        let elapsed = Date().timeIntervalSince(t0)
        var latencies: [Double] = []
        latencies.reserveCapacity(options.calls)
        let clock = ContinuousClock()
        // Bounded in time too: under overload a call can take most of a second.
        let budget = clock.now + .seconds(options.latencySeconds)
        for _ in 0..<options.calls where clock.now < budget {
            let start = clock.now
            _ = try client.roundTrip(#"{"id":2,"method":"status"}"#)
            let d = clock.now - start
            latencies.append(Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
        }
        let end = fanout?.snapshot()
        fanout?.stop()
        let events = zip(c1?.events ?? [], c0?.events ?? []).map { $0 - $1 }
        return ControlBenchmarkPhase(
            watchers: watchers,
            notificationsPerSecond: Double(s1.notifications - s0.notifications) / elapsed,
            beatsPerSecond: Double(s1.beats - s0.beats) / elapsed,
            latenciesMs: latencies.sorted(),
            eventsPerWatcher: events,
            watchersDropped: end?.closed.filter { $0 }.count ?? 0)
    }

    static func status(_ client: BenchConnection) throws -> (notifications: Int, beats: Int) {
        let line = try client.roundTrip(#"{"id":1,"method":"status"}"#)
        guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any],
              let result = object["result"] as? [String: Any] else {
            throw ControlBenchmarkError(description: "status: unexpected answer")
        }
        var n = 0, b = 0
        for device in result["devices"] as? [[String: Any]] ?? [] {
            let counters = device["counters"] as? [String: Any] ?? [:]
            n += counters["notifications"] as? Int ?? 0
            b += counters["beats"] as? Int ?? 0
        }
        return (n, b)
    }

    func percentile(_ p: Double) -> Double {
        guard !latenciesMs.isEmpty else { return 0 }
        return latenciesMs[min(latenciesMs.count - 1, Int((Double(latenciesMs.count) * p).rounded(.up)) - 1)]
    }

    static func table(_ a: ControlBenchmarkPhase, _ b: ControlBenchmarkPhase, options: ControlBenchmarkOptions) -> String {
        func f(_ v: Double, _ digits: Int = 0) -> String { String(format: "%.\(digits)f", v) }
        func events(_ p: ControlBenchmarkPhase) -> String {
            guard let lo = p.eventsPerWatcher.min(), let hi = p.eventsPerWatcher.max() else { return "–" }
            let mean = Double(p.eventsPerWatcher.reduce(0, +)) / Double(p.eventsPerWatcher.count)
            return "\(lo) / \(f(mean)) / \(hi)"
        }
        let rows: [(String, String, String)] = [
            ("notifications ingested /s", f(a.notificationsPerSecond), f(b.notificationsPerSecond)),
            ("beats ingested /s", f(a.beatsPerSecond), f(b.beatsPerSecond)),
            ("events per watcher in \(f(options.seconds, 1)) s (min / mean / max)", events(a), events(b)),
            ("events per watcher per s (mean)", "–", b.eventsPerWatcher.isEmpty ? "–"
                : f(Double(b.eventsPerWatcher.reduce(0, +)) / Double(b.eventsPerWatcher.count) / options.seconds)),
            ("watchers dropped by the daemon", "\(a.watchersDropped)", "\(b.watchersDropped)"),
            ("status calls made (of \(options.calls), \(f(options.latencySeconds)) s budget)", "\(a.latenciesMs.count)", "\(b.latenciesMs.count)"),
            ("status p50 (ms)", f(a.percentile(0.5), 3), f(b.percentile(0.5), 3)),
            ("status p99 (ms)", f(a.percentile(0.99), 3), f(b.percentile(0.99), 3)),
            ("status max (ms)", f(a.latenciesMs.last ?? 0, 3), f(b.latenciesMs.last ?? 0, 3)),
            ("daemon alive afterwards", a.alive ? "yes" : "no", b.alive ? "yes" : "no"),
            ("SIGTERM to exit (s)", a.shutdownSeconds.map { f($0, 2) } ?? "killed", b.shutdownSeconds.map { f($0, 2) } ?? "killed"),
        ]
        var out = "heartd control benchmark (simulator speed \(options.speed))\n\n"
        out += "| metric | \(a.watchers) watchers | \(b.watchers) watchers |\n|---|---:|---:|\n"
        for r in rows { out += "| \(r.0) | \(r.1) | \(r.2) |\n" }
        return out
    }
}
