import ArgumentParser
import Control
import Foundation
import HealthModel
import HeartQueries
import HeartStore
import Ingest

/// `heartbench session`: a 24-hour session over one real-RR sensor-day — its stop as heartd runs it (the reply with the
/// statistics, then the HRV analysis added after it) and what capture feels meanwhile, its statistics and its HTML report — and session
/// start → first tagged beat against the running daemon, each beside its baseline, in one run.
struct SessionBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "session",
        abstract: "Stop, statistics and report of a 24 h session, capture during the stop, start → first tagged beat.")

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
        let stops = try await stopsDuringCapture(database, start: start, end: end, runs: max(3, runs / 3))
        let started = try database.startSession(Session(label: "24 h", start: start, devices: [RealRRRecording.address]))
        let session = try database.stopSession(uuid: started.uuid, end: end)
        var table = ResultTable()
        try statistics(database, session: session, stops: stops, into: &table)
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
    /// What users feel of a stop — the reply's wait, and capture during it (`stopsDuringCapture`) — then its parts:
    /// the store's statistics (`sessionStatistics`: beats and points decoded from the blobs, the HRV analysis
    /// included) against the same `SessionStatistics` computed after loading everything through the read methods
    /// (`series`, `beats` per series, `quantities`), as a client of the socket would before the session statistics
    /// existed; and the analysis alone.
    func statistics(_ database: HeartDatabase, session: Session, stops: StopFigures, into table: inout ResultTable) throws {
        let end = session.end ?? session.start
        let stop = stops.stopSeconds.sorted()[stops.stopSeconds.count / 2]
        let after = stops.analysisSeconds.sorted()[stops.analysisSeconds.count / 2]
        table.add("`session.stop` of a 24 h session: rotate, drain, statistics without the HRV analysis, write "
                  + "(median of \(stops.stopSeconds.count); the reply `heartctl session stop` waits for)",
                  heartd: Fmt.ms(stop), baseline: "\(Fmt.ms(stop + after)) (the analysis too, before the reply)",
                  target: "< 500 ms", verdict: Verdict(stop < 0.5))
        table.add("… then the HRV analysis added to the stored session (`storeSessionAnalysis`: read, analyse, write; "
                  + "median of \(stops.analysisSeconds.count); after the reply, on a thread of its own)", heartd: Fmt.ms(after))
        let longest = stops.longestNotification.seconds
        table.add("… a notification handled during the stops and analyses: the longest (\(Fmt.count(stops.handled)) handled, "
                  + "one every 2 ms on a thread of its own, as BlueZ's reader)", heartd: Fmt.ms(longest),
                  baseline: "\(Fmt.ms(stop + after)) (stop and analysis)", target: "< 5 ms: capture never waits for the statistics",
                  verdict: Verdict(stops.handled > 0 && longest < 0.005))
        let (stats, seconds) = try Stopwatch.median(runs: runs) { try database.sessionStatistics(session, until: end) }
        let queries = StoreQueries(database: database)
        let (naive, naiveSeconds) = try Stopwatch.median(runs: max(3, runs / 3)) {
            try Self.statisticsThroughReadMethods(queries, from: session.start, to: end, device: RealRRRecording.address)
        }
        table.add("the statistics with the analysis (`sessionStatistics`: read and compute, median of \(runs); "
                  + "`session.show` of an active session)", heartd: Fmt.ms(seconds),
                  baseline: "\(Fmt.ms(naiveSeconds)) (load all through `series`/`beats`/`quantities`, then compute; "
                      + "\(Fmt.fixed(naiveSeconds / seconds, 1))×)")
        let series = try database.heartbeatSeries(from: session.start, to: end, device: RealRRRecording.address)
        let (_, analysisSeconds) = Stopwatch.median(runs: max(3, runs / 3)) {
            SessionStatistics.analysis(series, from: session.start, to: end)
        }
        table.add("… of which the HRV analysis (`SessionStatistics.analysis`, median of \(max(3, runs / 3)))",
                  heartd: Fmt.ms(analysisSeconds))
        var plain = stats, plainNaive = naive
        (plain.analysis, plainNaive.analysis) = (nil, nil)
        table.note("Statistics: \(Fmt.count(stats.beats)) beats, RMSSD \(Fmt.fixed(stats.rmssdMs ?? .nan, 2)) ms, average "
            + "\(Fmt.fixed(stats.heartRateAverage ?? .nan, 2)) bpm; the baseline's are "
            + "\(plainNaive == plain ? "identical" : "DIFFERENT: \(plainNaive)"), its analysis "
            + "\(Self.agreement(stats.analysis, naive.analysis)).")
    }

    /// How two analyses of the same beats agree: identical, or the largest relative difference of the corrected NN
    /// intervals' RMSSD, SD1 and DFA α1 (the baseline's beats come through the JSON answers).
    static func agreement(_ a: HRVAnalysis?, _ b: HRVAnalysis?) -> String {
        guard let a, let b else { return a == nil && b == nil ? "identical (none)" : "DIFFERENT (one is missing)" }
        if a == b { return "identical" }
        let pairs: [(Double?, Double?)] = [(a.time.metrics.rmssdMs, b.time.metrics.rmssdMs),
                                           (a.poincare?.sd1Ms, b.poincare?.sd1Ms), (a.dfaAlpha1, b.dfaAlpha1)]
        let worst = pairs.compactMap { x, y in x.flatMap { x in y.map { abs(x - $0) / max(abs(x), 1e-12) } } }.max() ?? .nan
        return "within \(String(format: "%.1e", worst)) relative (RMSSD, SD1, DFA α1)"
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
