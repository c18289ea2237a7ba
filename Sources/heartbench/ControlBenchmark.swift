import Control
import Foundation
import Glibc
import HeartQueries

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
        let status = String(decoding: StatusCall.request(id: 2, NoParams()).encodedLine(), as: UTF8.self)
        for _ in 0..<options.calls where clock.now < budget {
            let start = clock.now
            _ = try client.roundTrip(status)
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
        let line = try client.roundTrip(StatusCall.request(id: 1, NoParams()))
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
