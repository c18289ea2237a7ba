import ArgumentParser
import Foundation
import HeartStore
import Ingest
import Logging
import Sync
import TestBus

/// `heartbench sync`: 20 gateway stores, each a real-RR sensor-day ingested through the pipeline, delivered
/// concurrently by `SyncRunner` into one local PostgreSQL (Debian's, started here with its default durability)
/// — beside a naive client that INSERTs one row per beat, in the same run.
struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync", abstract: "Gateway stores → central PostgreSQL: heartd-sync against a naive row-per-beat client.")

    @Option(help: "Gateway stores, each one sensor-day.") var gateways = 20
    @Option(help: "Seconds of each sensor-day (86400 = a day).") var seconds = 86_400
    @Option(help: "Beats the naive client inserts (one INSERT each; its per-day time is extrapolated).") var naiveBeats = 20_000
    @Option(help: "Rounds of the finished-series → central-row delay probe.") var delayRounds = 10
    @Option(help: "Also write the markdown report to this file.") var output: String?
    @Option(help: "sync.batch_rows: expanded rows per transaction.") var batchRows = SyncSettings().batchRows
    @Flag(help: "Only one gateway-day delivered alone, beside the naive client (to iterate on the < 2 s target).")
    var aloneOnly = false

    func run() async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let gateways = aloneOnly ? 1 : self.gateways
        progress("heartbench sync: \(gateways) gateways × \(seconds) s of the real-RR recording")
        let server = try PostgresServer(start: true, settings: [])
        defer { server.remove() }
        let db = try server.createDatabase()
        let password = workspace.path("password")
        try PostgresServer.password.write(toFile: password, atomically: true, encoding: .utf8)

        // 1. The stores, through the real ingest pipeline (not timed against the targets).
        var stores: [String] = []
        var beatsPerGateway = 0
        for g in 0..<gateways {
            let store = workspace.path("gw\(g).sqlite")
            let database = try HeartDatabase(path: store)
            var day = RealRRRecording(serial: String(format: "RR%06d", g))
            let ingest = try await IngestBenchmark(settings: IngestSettings(checkpointInterval: 300))
                .run(into: database, recording: &day, days: 1, secondsPerDay: seconds)
            beatsPerGateway = ingest.beats
            try database.close()
            stores.append(store)
        }
        progress("stores ready: \(Fmt.count(beatsPerGateway)) beats per gateway-day")

        func settings(_ g: Int) -> SyncSettings {
            var s = SyncSettings()
            s.url = db.url
            s.tls = .disable
            s.passwordFile = password
            s.gateway = "gw\(g)"
            s.stateFile = workspace.path("gw\(g).state.json")
            s.timeoutSeconds = 300
            s.batchRows = batchRows
            return s
        }
        if aloneOnly {
            let alone = try await SyncBenchmarkParts.syncAlone(store: stores[0], settings: settings(0), server: server)
            let naive = try await SyncBenchmarkParts.naive(store: stores[0], server: server, database: db.name,
                                                           url: db.url, password: PostgresServer.password, beats: naiveBeats)
            var table = ResultTable()
            table.add("time per gateway-day (one gateway alone)", heartd: Fmt.s(alone),
                      baseline: Fmt.s(naive.seconds / Double(naive.beats) * Double(beatsPerGateway)) + " (extrapolated)",
                      target: "< 2 s", verdict: Verdict(alone < 2))
            table.note("One gateway-day: \(Fmt.count(beatsPerGateway)) beats; naive: \(Fmt.count(naive.beats)) autocommitted INSERTs measured.")
            try BenchmarkReport.emit(BenchmarkReport.render(
                title: "heartbench sync --alone-only", table: table, machine: MachineInfo.current(),
                sqliteVersion: "n/a — PostgreSQL " + ((try? server.admin("SHOW server_version")) ?? "?"),
                command: BenchmarkReport.commandLine), to: output)
            return
        }

        // 2. heartd-sync: every gateway at once, each its own runner and connection.
        let silent = Logger(label: "heartbench", factory: { _ in SwiftLogNoOpLogHandler() })
        let (perGateway, total) = try await Stopwatch.measureAsync {
            try await withThrowingTaskGroup(of: Double.self) { group in
                for (g, store) in stores.enumerated() {
                    let s = settings(g)
                    let runner = SyncRunner(settings: s, storePath: store, identity: GatewayIdentity(name: s.gateway, version: "bench"),
                                            connector: try CentralConnector(settings: s, environment: [:]), logger: silent)
                    group.addTask { try await Stopwatch.measureAsync { try await runner.run(once: true) }.seconds }
                }
                return try await group.reduce(into: [Double]()) { $0.append($1) }
            }
        }
        let centralBeats = try server.integer("SELECT count(*) FROM beats", database: db.name)
        guard centralBeats == beatsPerGateway * gateways else {
            throw BenchmarkError("central holds \(centralBeats) beats, not \(beatsPerGateway * gateways)")
        }
        // One gateway alone, for the per-gateway-day figure without contention.
        let alone = try await SyncBenchmarkParts.syncAlone(store: stores[0], settings: settings(0), server: server)

        // 3. The naive client, same server, same run.
        let naive = try await SyncBenchmarkParts.naive(store: stores[0], server: server, database: db.name,
                                                       url: db.url, password: PostgresServer.password, beats: naiveBeats)
        // 4. Bytes, indexes, steady-state delay.
        let sizes = try SyncBenchmarkParts.sizes(server: server, database: db.name)
        let index = try SyncBenchmarkParts.brinVersusBtree(server: server, database: db.name)
        let delays = try await SyncBenchmarkParts.steadyStateDelay(workspace: workspace, settings: settings(gateways),
                                                                   rounds: delayRounds, server: server, database: db.name)

        var table = ResultTable()
        let beats = Double(centralBeats)
        let slowest = perGateway.max() ?? 0
        table.add("\(gateways) gateway-days synced concurrently: total", heartd: Fmt.s(total),
                  baseline: Fmt.s(naive.seconds / Double(naive.beats) * beats) + " (extrapolated)",
                  target: "< 30 s", verdict: Verdict(total < 30))
        table.add("beats per second into PostgreSQL", heartd: Fmt.rate(beats / total), baseline: Fmt.rate(Double(naive.beats) / naive.seconds))
        // The < 2 s target is a gateway-day's delivery on its own (the row below); sharing two cores with 19 others,
        // each takes about the total, which has its own target (< 30 s, above).
        table.add("time per gateway-day (slowest of \(gateways), concurrent; amortized: total / \(gateways))",
                  heartd: "\(Fmt.s(slowest)); \(Fmt.s(total / Double(gateways)))",
                  baseline: Fmt.s(naive.seconds / Double(naive.beats) * Double(beatsPerGateway)) + " (extrapolated)")
        table.add("time per gateway-day (one gateway alone)", heartd: Fmt.s(alone),
                  baseline: Fmt.s(naive.seconds / Double(naive.beats) * Double(beatsPerGateway)) + " (extrapolated)",
                  target: "< 2 s", verdict: Verdict(alone < 2))
        table.add("bytes per beat: compact rows (samples table, all types, with indexes)",
                  heartd: Fmt.fixed(Double(sizes.samples) / beats, 1), baseline: "—")
        table.add("bytes per beat: expanded beats table (with its BRIN index)", heartd: Fmt.fixed(Double(sizes.beats) / beats, 1),
                  baseline: Fmt.fixed(Double(naive.tableBytes) / Double(naive.beats), 1) + " (naive table + primary key)")
        table.add("bytes per heart-rate point: expanded heart_rate table", heartd: Fmt.fixed(Double(sizes.heartRate) / Double(max(sizes.heartRatePoints, 1)), 1))
        table.add("finished series → central row, steady state (median / max of \(delays.count))",
                  heartd: "\(Fmt.s(delays.sorted()[delays.count / 2])) / \(Fmt.s(delays.max() ?? 0))",
                  target: "< 5 s", verdict: Verdict((delays.max() ?? 99) < 5))
        table.add("beats index size: BRIN vs btree on time", heartd: Fmt.bytes(index.brinBytes), baseline: Fmt.bytes(index.btreeBytes) + " (btree)")
        table.add("one device, one hour of beats (count): BRIN vs btree", heartd: Fmt.ms(index.brinSeconds),
                  baseline: Fmt.ms(index.btreeSeconds) + " (btree)")
        table.note("Each gateway-day: \(Fmt.count(beatsPerGateway)) beats (`RealRRRecording`: pyhrv's \(SimulatorRecording.nnIntervalsMs.count) real NN intervals looped by `SimulatorScript`, one notification a second); "
                   + "stores built by IngestPipeline → StoreSink (not timed). PostgreSQL \(server.bin) with its default durability "
                   + "(fsync on, synchronous_commit on), on 127.0.0.1.")
        table.note("heartd-sync: pages of batch_size \(SyncSettings().batchSize) changes cut into transactions of at most batch_rows \(batchRows) expanded rows, "
                   + "the next prepared while the server writes the current one (samples and expanded rows via unnest arrays, "
                   + "the delivered anchor in the same transaction). Naive: one autocommitted INSERT per beat "
                   + "(\(Fmt.count(naive.beats)) beats measured, per-day figures extrapolated linearly).")
        table.note("Per-gateway times (s): " + perGateway.sorted().map { Fmt.fixed($0, 2) }.joined(separator: ", "))
        table.note("Index timings: `SELECT count(*) FROM beats WHERE device = … AND time >= … AND time < …` (1 h), server execution time (EXPLAIN ANALYZE), median of 5, "
                   + "with only the BRIN index, then only a btree on (time).")
        let report = BenchmarkReport.render(title: "heartbench sync", table: table, machine: MachineInfo.current(),
                                            sqliteVersion: "n/a — PostgreSQL " + ((try? server.admin("SHOW server_version")) ?? "?"),
                                            command: BenchmarkReport.commandLine)
        try BenchmarkReport.emit(report, to: output)
    }
}
