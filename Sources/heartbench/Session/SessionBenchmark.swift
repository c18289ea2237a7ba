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

    @Option(help: "Timed runs per figure (median).") var runs = 9
    @Option(help: "Session starts against the daemon for the latency.") var trials = 8
    @Option(help: "The heartd binary (default: next to this executable); the latency is skipped without one.") var heartd: String?
    @Option(help: "Also write the markdown report to this file.") var output: String?
    @Option(help: "Keep the 24 h report here (to look at it).") var keepReport: String?

    func run() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        progress("heartbench session: one real-RR sensor-day (RealRRRecording) through the ingest pipeline …")
        let database = try HeartDatabase(path: workspace.path("day.sqlite"))
        var day = RealRRRecording(serial: "RR000001")
        let ingest = try await IngestBenchmark(settings: IngestSettings(checkpointInterval: 300))
            .run(into: database, recording: &day, days: 1, secondsPerDay: 86_400)
        let start = Date(timeIntervalSince1970: RealRRRecording.startUnix), end = start.addingTimeInterval(86_400)
        let started = try database.startSession(Session(label: "24 h", start: start, devices: [RealRRRecording.address]))
        let (session, stopSeconds) = try Stopwatch.measure { try database.stopSession(uuid: started.uuid, end: end) }
        var table = ResultTable()
        try statistics(database, session: session, stopSeconds: stopSeconds, into: &table)
        try report(database, session: session, into: &table)
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
    /// `quantities`), as a client of the socket would before the session statistics existed.
    func statistics(_ database: HeartDatabase, session: Session, stopSeconds: Double, into table: inout ResultTable) throws {
        let end = session.end ?? session.start
        let (stats, seconds) = try Stopwatch.median(runs: runs) { try database.sessionStatistics(session, until: end) }
        let queries = StoreQueries(database: database)
        let (naive, naiveSeconds) = try Stopwatch.median(runs: max(3, runs / 3)) {
            try Self.statisticsThroughReadMethods(queries, from: session.start, to: end, device: RealRRRecording.address)
        }
        table.add("Statistics of a 24 h session (`sessionStatistics`, median of \(runs))", heartd: Fmt.ms(seconds),
                  baseline: "\(Fmt.ms(naiveSeconds)) (load all through `series`/`beats`/`quantities`, then compute; "
                      + "\(Fmt.fixed(naiveSeconds / seconds, 1))×)",
                  target: "< 50 ms", verdict: Verdict(seconds < 0.05))
        table.add("… `session.stop` with them (statistics + the write)", heartd: Fmt.ms(stopSeconds))
        table.note("Statistics: \(Fmt.count(stats.beats)) beats, RMSSD \(Fmt.fixed(stats.rmssdMs ?? .nan, 2)) ms, average "
            + "\(Fmt.fixed(stats.heartRateAverage ?? .nan, 2)) bpm; the baseline's are \(naive == stats ? "identical" : "DIFFERENT: \(naive)").")
    }

    /// The baseline: every series' beats and every point as JSON answers of the read methods, then the model.
    static func statisticsThroughReadMethods(_ queries: StoreQueries, from: Date, to: Date, device: String) throws -> SessionStatistics {
        let range = RangeParams(from: .unixSeconds(from.timeIntervalSince1970), to: .unixSeconds(to.timeIntervalSince1970),
                                device: device)
        var series: [HeartbeatSeriesSample] = []
        let listed = try queries.answer(SeriesCall.self, SeriesCall.Params(
            type: "heartbeat", device: device, from: range.from, to: range.to, limit: 1_000_000))
        for summary in listed.samples.map(\.summary) {
            let answer = try queries.answer(BeatsCall.self, UUIDParams(uuid: summary.uuid.uuidString))
            let beats = answer.beats.map { Beat(offset: $0.offset, precededByGap: $0.precededByGap) }
            series.append(HeartbeatSeriesSample(uuid: summary.uuid, start: summary.start, end: summary.end, beats: beats,
                                                device: summary.device))
        }
        func points(_ type: String) throws -> [QuantityPoint] {
            try queries.answer(QuantitiesCall.self, QuantitiesCall.Params(QuantitiesCall.Options(type: type), range: range)).points
        }
        return try SessionStatistics(start: from, end: to, heartbeatSeries: series, heartRate: try points("heart-rate"),
                                     energy: try points("energy"))
    }

    /// `report` as the daemon or `heartctl --db` answers it (store → data → page → JSON answer), against the same
    /// data rendered without downsampling.
    func report(_ database: HeartDatabase, session: Session, into table: inout ResultTable) throws {
        let queries = StoreQueries(database: database)
        let (answer, seconds) = try Stopwatch.median(runs: max(3, runs / 3)) {
            try queries.answer(ReportCall.self, ReportCall.Params(session: session.uuid.uuidString))
        }
        let html = answer.html
        let (data, gatherSeconds) = try Stopwatch.median(runs: 3) { try queries.reportData(.session(session.uuid)) }
        let (_, renderSeconds) = Stopwatch.median(runs: 3) { ReportPage.render(data) }
        let (full, fullSeconds) = Stopwatch.median(runs: 3) { ReportPage.render(data, downsampling: .none) }
        table.add("Report of a 24 h session: the `report` method, store → page (median of \(max(3, runs / 3)))",
                  heartd: Fmt.ms(seconds), baseline: "\(Fmt.ms(gatherSeconds + fullSeconds)) (read + render without downsampling)",
                  target: "< 1 s", verdict: Verdict(seconds < 1))
        table.add("… of which reading the store / rendering", heartd: "\(Fmt.ms(gatherSeconds)) / \(Fmt.ms(renderSeconds))",
                  baseline: "\(Fmt.ms(gatherSeconds)) / \(Fmt.ms(fullSeconds))")
        table.add("… file size", heartd: Fmt.bytes(Int64(html.utf8.count)), baseline: Fmt.bytes(Int64(full.utf8.count)),
                  target: "< 2 MB", verdict: Verdict(!html.isEmpty && html.utf8.count < 2_000_000))
        table.note("Report: downsampled to min/max per pixel column for the lines, a \(Fmt.fixed(Downsampling().densityCell, 0)) px "
            + "density grid for the Poincaré plot beyond \(Fmt.count(Downsampling().maxPairDots)) pairs; over the socket the "
            + "page travels as one JSON answer.")
        if let keepReport { try html.write(toFile: keepReport, atomically: true, encoding: .utf8) }
    }
}
