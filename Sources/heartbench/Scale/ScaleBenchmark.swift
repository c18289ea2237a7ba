import ArgumentParser
import Control
import Foundation
import HeartQueries

/// `heartbench scale`: months of real RR (`RealRRRecording`, imported by `heartd replay`) and every range read over
/// them — `heartctl --db` as a process (wall time, peak memory) and the same request on a running daemon's socket
/// (its wall time, the daemon's peak and resident memory after) — beside a naive SQLite table of one row per beat and
/// per value (`scripts/bench/naive_import.py`, queried by sqlite3), each figure beside issue 31's target for a year;
/// then the store delivered into PostgreSQL and read with `heartctl --central` (`ScaleCentral`).
struct ScaleBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale", abstract: "Range reads over months of real-RR data: time and peak memory against targets.")

    @Option(help: "Days of the real-RR recording (default 30).") var days: Int?
    @Option(help: "Hours of the real-RR recording instead of days (1 with --quick).") var hours: Int?
    @Flag(help: "CI-friendly run: 1 hour, a 2-s latency probe; fails when a read breaks its memory bound (64 MiB).")
    var quick = false
    @Option(help: "The heartctl to measure (default: the one built beside heartbench).") var heartctl: String?
    @Option(help: "The heartd to import with and serve the socket reads (default: the one built beside heartbench).")
    var heartd: String?
    @Flag(help: "Leave out the naive importer and its queries.") var noNaive = false
    @Flag(help: "Leave out `--central` (the store delivered into a local PostgreSQL, read with heartctl --central).")
    var noCentral = false
    @Option(help: "Gateways in the central database: gw0 delivered by heartd-sync, the others copies of its rows made in SQL (`ScaleFleet`; default 1, 3 with --quick).")
    var gateways: Int?
    @Flag(help: "Leave out the local reads (`heartctl --db`, the daemon's socket, the latency probe): the store is imported and read only through `--central`.")
    var noLocal = false
    @Option(help: "Seconds of each phase of the notification-latency probe (no read, then the report back to back; default 5, 2 with --quick); 0 leaves it out.")
    var latencySeconds: Double?
    @Option(help: "A second heartctl (e.g. main's) whose `--central` reads run beside the measured one's on the same database, each read one after the other.")
    var baselineHeartctl: String?
    @Flag(help: "Hold the central PostgreSQL after the reads for by-hand queries: print its psql command and wait until the file it names is removed.")
    var holdServer = false
    @Option(help: "Also write the markdown report to this file.") var output: String?
    @Flag(help: "Keep the files (their directory is printed).") var keepFiles = false
    @Option(help: "Read this store (the heart.db of a run with --keep-files and the same --days/--hours) instead of writing and importing the recording; leaves out the naive baseline.")
    var store: String?

    static let memoryTarget: Int64 = 64 << 20

    /// Whether wall times are judged against the year targets. Scaled linearly from less than a day of data
    /// (`--quick`'s hour: × 8,760), a process's start and connect alone would miss every one, so such a run judges
    /// memory only and prints the time beside the target unjudged.
    static func judgesTime(_ scale: Double) -> Bool { scale <= 365 }

    /// `target`'s cell: the year target with this run's linear estimate (`detail` is what the estimate scales), or
    /// why there is none.
    static func yearTarget(_ target: Double, wall: Double, scale: Double, detail: String) -> String {
        guard judgesTime(scale) else { return "year < \(Fmt.s(target)) (not judged from under a day of data); ≤ 64 MiB" }
        return "year < \(Fmt.s(target)) (\(detail)≈ \(Fmt.s(wall * scale))); ≤ 64 MiB"
    }

    /// Whether `wall` meets the year target, or is not judged (`judgesTime`).
    static func meets(_ target: Double?, wall: Double, scale: Double) -> Bool {
        guard let target, judgesTime(scale) else { return true }
        return wall * scale < target
    }

    func run() async throws {
        let hours = self.hours ?? (days == nil && quick ? 1 : nil)
        let days = self.days ?? 30
        guard days >= 1, hours.map({ $0 >= 1 }) ?? true else { throw ValidationError("--days and --hours must be at least 1") }
        let seconds = hours.map { $0 * 3600 } ?? days * 86_400
        let span = hours.map { "\($0) hour(s)" } ?? "\(days) day(s)"
        let heartctl = try self.heartctl ?? ReplayBenchmark.executable("heartctl")
        let heartd = try self.heartd ?? ReplayBenchmark.executable("heartd")
        let workspace = try Workspace()
        defer { if keepFiles { print("files kept in \(workspace.directory)") } else { workspace.remove() } }
        var table = ResultTable()
        var overBound: [String] = []  // reads whose peak memory broke `memoryTarget`
        progress("heartbench scale: \(span) of real RR; files in \(workspace.directory)")
        let file = workspace.path("real-rr.jsonl")
        let store: String
        var imported: (timing: ReplayBenchmark.Timing, output: String)?
        var fileBytes: Int64 = 0
        if let reused = self.store {
            guard FileManager.default.fileExists(atPath: reused) else { throw ValidationError("--store: no file at \(reused)") }
            store = reused
        } else {
            fileBytes = hours == nil ? try RealRRRecording.write(days: days, to: file)
                : try RealRRRecording.write(days: 1, to: file, secondsPerDay: seconds)
            store = workspace.path("heart.db")
            imported = try ReplayBenchmark.timed(heartd, ["replay", "--db", store, file])
        }
        let storeBytes = Self.bytes(store, ["", "-wal", "-open"])
        var naiveStore: String?
        var naiveImport: ReplayBenchmark.Timing?
        if !noNaive, self.store == nil {
            let path = workspace.path("naive.sqlite")
            naiveImport = try ReplayBenchmark.timed("/usr/bin/env", ["python3", ReplayBenchmark.naiveScript(), file, path]).timing
            naiveStore = path
        }
        table.add("Import \(span) (`heartd replay`), wall", heartd: imported.map { Fmt.s($0.timing.wall) } ?? "— (--store \(store))",
                  baseline: naiveImport.map { "naive importer \(Fmt.s($0.wall))" } ?? "—")
        table.add("Store size", heartd: Fmt.bytes(storeBytes),
                  baseline: naiveStore.map { Fmt.bytes(Self.bytes($0, [""])) } ?? "—")
        let from = Date(timeIntervalSince1970: RealRRRecording.startUnix)
        let to = from.addingTimeInterval(Double(seconds))
        let report = workspace.path("report.html")
        let reads = noLocal ? [] : ScaleRead.all(store: store, from: from, to: to, report: report)
        let scale = 365.0 * 86_400 / Double(seconds)
        for read in reads {
            var run = try ChildRun.run(heartctl, read.heartctl, output: workspace.path("out"))
            if run.status == 64, read.heartctl.contains("--all") {
                // A heartctl without pages (before issue 31): one listing of everything.
                run = try ChildRun.run(heartctl, read.heartctl.filter { $0 != "--all" }.map { $0 == "1000" ? "100000000" : $0 },
                                       output: workspace.path("out"))
            }
            var baseline = "—"
            if let sql = read.naiveSQL, let naiveStore {
                let n = try ChildRun.run("/usr/bin/sqlite3", [naiveStore, sql], output: workspace.path("naive-out"))
                baseline = "sqlite3 \(Fmt.s(n.wall)), \(Fmt.mib(n.peakBytes))"
            }
            let target = read.yearTarget.map { Self.yearTarget($0, wall: run.wall, scale: scale, detail: "here × \(Fmt.fixed(scale, 1)) ") }
                ?? "≤ 64 MiB"
            if run.peakBytes > Self.memoryTarget { overBound.append("heartctl --db \(read.name)") }
            let ok = run.status == 0 && run.peakBytes <= Self.memoryTarget && Self.meets(read.yearTarget, wall: run.wall, scale: scale)
            table.add("`heartctl --db` \(read.name): wall, peak memory", heartd: "\(Fmt.s(run.wall)), \(Fmt.mib(run.peakBytes))"
                      + (run.status == 0 ? "" : " (exit \(run.status))"), baseline: baseline, target: target, verdict: Verdict(ok))
            if read.method == .report, let size = try? FileManager.default.attributesOfItem(atPath: report)[.size] as? NSNumber {
                table.add("Report size", heartd: Fmt.bytes(size.int64Value), target: "< 2 MB",
                          verdict: Verdict(size.int64Value < 2_000_000))
            }
        }
        if !reads.isEmpty { try socketReads(reads, heartd: heartd, store: store, scale: scale, into: &table, overBound: &overBound) }
        let latencySeconds = self.latencySeconds ?? (quick ? 2 : 5)
        if latencySeconds > 0, !noLocal, let heaviest = reads.first(where: { $0.method == .report }) {
            progress("heartbench scale: notification latency, \(latencySeconds) s without a read and \(latencySeconds) s beside `report` …")
            try await latency(heaviest, seconds: latencySeconds, heartd: heartd, store: store, workspace: workspace, into: &table)
        }
        if !noCentral {
            try await ScaleCentral(heartctl: heartctl, store: store, workspace: workspace, from: ScaleRead.iso(from),
                                   to: ScaleRead.iso(to), gateways: max(1, gateways ?? (quick ? 3 : 1)),
                                   baselineHeartctl: baselineHeartctl, holdServer: holdServer)
                .measure(scale: scale, into: &table, overBound: &overBound)
        }
        table.note("Data: \(span) of the real-RR recording (pyhrv's 337 NN intervals looped, one notification a second), "
            + (imported.map { "\(Fmt.bytes(fileBytes)) of replay lines; heartd replay: \($0.output)." }
                ?? "the store of an earlier run (--store \(store))."))
        table.note("Peak memory: `heartctl` — the child's VmHWM (ru_maxrss from wait4); daemon — its VmHWM over the request "
            + "(reset with clear_refs 5 before it), then its VmRSS after. Year figures scale the wall time linearly.")
        if !noCentral {
            table.note("`--central`: the store delivered by heartd-sync's runner into a local PostgreSQL (Debian's, fsync off); "
                + "the naive baseline is psql's `GROUP BY date_trunc('day', time)` over the expanded tables (one row per value "
                + "or beat), in the same run.")
        }
        let markdown = BenchmarkReport.render(title: "heartbench scale", table: table, machine: MachineInfo.current(),
                                              sqliteVersion: "—", command: BenchmarkReport.commandLine)
        try BenchmarkReport.emit(markdown, to: output)
        if table.missedCount > 0 { print("\(table.missedCount) target(s) missed (see the ok? column)") }
        if !overBound.isEmpty {
            print("memory bound (64 MiB) broken by: \(overBound.joined(separator: ", "))")
            if quick { throw ExitCode(1) }
        }
    }

    /// Each read as one request on a daemon serving the store (`heartd --simulate`: a live strap beside it).
    func socketReads(_ reads: [ScaleRead], heartd: String, store: String, scale: Double, into table: inout ResultTable,
                     overBound: inout [String]) throws {
        let daemon = try BenchDaemon(heartd: heartd, speed: 1, db: store)
        defer { daemon.stop() }
        let pid = daemon.process.processIdentifier
        let connection = try BenchConnection(path: daemon.socket)
        let baseline = ProcessMemory.rss(pid) ?? 0
        for (id, read) in reads.enumerated() where !read.params.isEmpty {
            ProcessMemory.resetPeak(pid)
            let clock = ContinuousClock()
            let start = clock.now
            let line = try connection.roundTrip(ControlRequest(id: id + 1, method: read.method.rawValue, params: read.params))
            let wall = (clock.now - start).seconds
            let peak = ProcessMemory.peak(pid) ?? 0, after = ProcessMemory.rss(pid) ?? 0
            if peak - baseline > Self.memoryTarget { overBound.append("heartd \(read.name)") }
            let failed = line.count < 200 && String(decoding: line, as: UTF8.self).contains("\"error\"")
            let target = read.yearTarget.map { Self.yearTarget($0, wall: wall, scale: scale, detail: "") } ?? "≤ 64 MiB"
            table.add("socket \(read.name): wall, heartd peak (resident after)",
                      heartd: "\(Fmt.s(wall)), \(Fmt.mib(peak)) (\(Fmt.mib(after)))" + (failed ? " (error)" : ""),
                      baseline: "heartd resident before: \(Fmt.mib(baseline))", target: target,
                      verdict: Verdict(!failed && peak - baseline <= Self.memoryTarget && Self.meets(read.yearTarget, wall: wall, scale: scale)))
        }
    }

    /// Notification → `watch` event while `read` runs back to back, beside the same with no read (`NotificationLatency`).
    func latency(_ read: ScaleRead, seconds latencySeconds: Double, heartd: String, store: String, workspace: Workspace, into table: inout ResultTable) async throws {
        let period = 0.05
        let probe = NotificationLatency(heartd: heartd, store: store, workspace: workspace)
        let (idle, loaded) = try await probe.measure(read: ControlRequest(id: 2, method: read.method.rawValue, params: read.params),
                                                     seconds: latencySeconds, period: period)
        let slack = 0.010
        let ok = idle.lost == 0 && loaded.lost == 0 && !loaded.reads.isEmpty && loaded.quantile(0.99) <= idle.quantile(0.99) + slack
        let reads = loaded.reads.isEmpty ? "no read finished"
            : "\(loaded.reads.count) × \(read.name) (\(Fmt.s(loaded.reads.reduce(0, +) / Double(loaded.reads.count))) each)"
        table.add("notification → `watch` heart-rate event while \(reads) runs back to back", heartd: loaded.text,
                  baseline: "no read: \(idle.text)", target: "p99 ≤ no-read p99 + \(Fmt.ms(slack))", verdict: Verdict(ok))
        table.note("Notification latency: heartd serving this store captures one sensor of the fake BlueZ on a private bus; a "
            + "notification every \(Fmt.ms(period)) (the fake's Notify), each timed from the request to the fake until a `watch` "
            + "connection reads its `heart-rate` event; the read runs on a connection and thread of its own.")
    }

    static func bytes(_ path: String, _ suffixes: [String]) -> Int64 {
        suffixes.reduce(0) { total, suffix in
            total + (((try? FileManager.default.attributesOfItem(atPath: path + suffix))?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
