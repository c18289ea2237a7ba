import ArgumentParser
import Control
import Foundation
import HealthModel
import HeartQueries
import HeartStore
import Ingest

/// `heartbench session`: a 24-hour session over one real-RR sensor-day — its statistics and its HTML report —
/// and session start → first tagged beat against the running daemon, each beside its baseline, in one run.
struct SessionBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Session statistics and report of a 24 h session, and start → first tagged beat latency.")

    @Option(help: "The RR file played in a loop (default: shared/testdata's pyhrv sample).") var rrFile: String?
    @Option(help: "Timed runs per figure (median).") var runs = 9
    @Option(help: "Session starts against the daemon for the latency.") var trials = 8
    @Option(help: "The heartd binary (default: next to this executable); the latency is skipped without one.") var heartd: String?
    @Option(help: "Also write the markdown report to this file.") var output: String?
    @Option(help: "Keep the 24 h report here (to look at it).") var keepReport: String?

    func run() async throws {
        guard let path = rrFile ?? RealRRDay.defaultPath() else { throw ValidationError("no RR file: pass --rr-file") }
        let workspace = try Workspace()
        defer { workspace.remove() }
        progress("heartbench session: one sensor-day of \(path) through the ingest pipeline …")
        let database = try HeartDatabase(path: workspace.path("day.sqlite"))
        var day = RealRRDay(rrMs: try RealRRDay.load(path: path), serial: "RR000001")
        let ingest = try await IngestBenchmark(settings: IngestSettings(checkpointInterval: 300))
            .run(into: database, recording: &day, days: 1, secondsPerDay: 86_400)
        let start = Date(timeIntervalSince1970: day.startUnix), end = start.addingTimeInterval(86_400)
        let started = try database.startSession(Session(label: "24 h", start: start, devices: [RealRRDay.address]))
        let (session, stopSeconds) = try Stopwatch.measure { try database.stopSession(uuid: started.uuid, end: end) }
        var table = ResultTable()
        try await statistics(database, session: session, stopSeconds: stopSeconds, into: &table)
        try await report(database, session: session, into: &table)
        table.note("Data: one sensor-day (86 400 notifications, \(Fmt.count(ingest.beats)) beats, \(ingest.seriesFinished) series) "
            + "of real RR intervals in a loop, stored by IngestPipeline → StoreSink (not timed); the session covers the whole day.")
        try latency(into: &table)
        let report = BenchmarkReport.render(title: "heartbench session", table: table, machine: MachineInfo.current(),
                                            sqliteVersion: (try? database.read { try String.fetchOne($0, sql: "SELECT sqlite_version()") ?? "?" }) ?? "?",
                                            command: BenchmarkReport.commandLine)
        try database.close()
        try BenchmarkReport.emit(report, to: output)
        if table.missedCount > 0 { print("\(table.missedCount) target(s) missed (see the ok? column)") }
    }

    /// The store's statistics (`sessionStatistics`: beats and points decoded from the blobs) against the same
    /// `SessionStatistics` computed after loading everything through the read methods (`series`, `beats` per series,
    /// `quantities`), as a client of the socket or `heartctl --db` would.
    func statistics(_ database: HeartDatabase, session: Session, stopSeconds: Double, into table: inout ResultTable) async throws {
        let end = session.end ?? session.start
        let (stats, seconds) = try Stopwatch.median(runs: runs) { try database.sessionStatistics(session, until: end) }
        let queries = StoreQueries(database: database)
        let query = ReportQuery(.range(from: session.start, to: end, device: RealRRDay.address))
        var naive: SessionStatistics?
        var naiveTimes: [Double] = []
        for _ in 0..<max(3, runs / 3) {
            let (result, t) = try await Stopwatch.measureAsync {
                try await query.gather(now: end) { m, p in try queries.handle(m, p) }.statistics
            }
            naive = result
            naiveTimes.append(t)
        }
        let naiveSeconds = naiveTimes.sorted()[naiveTimes.count / 2]
        table.add("Statistics of a 24 h session (`sessionStatistics`, median of \(runs))", heartd: Fmt.ms(seconds),
                  baseline: "\(Fmt.ms(naiveSeconds)) (load all through `series`/`beats`/`quantities`, then compute; "
                      + "\(Fmt.fixed(naiveSeconds / seconds, 1))×)",
                  target: "< 50 ms", verdict: Verdict(seconds < 0.05))
        table.add("… `session.stop` with them (statistics + the write)", heartd: Fmt.ms(stopSeconds))
        table.note("Statistics: \(Fmt.count(stats.beats)) beats, RMSSD \(Fmt.fixed(stats.rmssdMs ?? .nan, 2)) ms, average "
            + "\(Fmt.fixed(stats.heartRateAverage ?? .nan, 2)) bpm; the baseline's are \(naive == stats ? "identical" : "DIFFERENT: \(String(describing: naive))").")
    }

    /// `heartctl report --db` without the process: gather through `StoreQueries`, render, against the same data
    /// rendered without downsampling.
    func report(_ database: HeartDatabase, session: Session, into table: inout ResultTable) async throws {
        let queries = StoreQueries(database: database)
        let query = ReportQuery(.session(session.uuid))
        var gatherTimes: [Double] = [], renderTimes: [Double] = []
        var html = "", data: ReportData?
        for _ in 0..<max(3, runs / 3) {
            let (d, g) = try await Stopwatch.measureAsync { try await query.gather { m, p in try queries.handle(m, p) } }
            let (h, r) = Stopwatch.measure { ReportPage.render(d) }
            gatherTimes.append(g)
            renderTimes.append(r)
            html = h
            data = d
        }
        guard let data else { return }
        let (full, fullSeconds) = Stopwatch.median(runs: 3) { ReportPage.render(data, downsampling: .none) }
        let median = { (v: [Double]) in v.sorted()[v.count / 2] }
        let total = zip(gatherTimes, renderTimes).map { $0 + $1 }
        table.add("Report of a 24 h session: gather + render (median of \(total.count))", heartd: Fmt.ms(median(total)),
                  baseline: "\(Fmt.ms(median(gatherTimes) + fullSeconds)) (rendered without downsampling)",
                  target: "< 1 s", verdict: Verdict(median(total) < 1))
        table.add("… of which rendering", heartd: Fmt.ms(median(renderTimes)), baseline: Fmt.ms(fullSeconds))
        table.add("… file size", heartd: Fmt.bytes(Int64(html.utf8.count)), baseline: Fmt.bytes(Int64(full.utf8.count)),
                  target: "< 2 MB", verdict: Verdict(html.utf8.count < 2_000_000))
        table.note("Report: data gathered through StoreQueries' read methods as `heartctl report --db` does (the socket "
            + "adds the transfer); downsampled to min/max per pixel column for the lines, a \(Fmt.fixed(Downsampling().densityCell, 0)) px "
            + "density grid for the Poincaré plot beyond \(Fmt.count(Downsampling().maxPairDots)) pairs.")
        if let keepReport { try html.write(toFile: keepReport, atomically: true, encoding: .utf8) }
    }
}
