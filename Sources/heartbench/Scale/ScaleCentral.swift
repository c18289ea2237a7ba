import Foundation
import Logging
import Sync
import TestBus

/// `heartbench scale`'s `--central` part: the imported store delivered by `heartd-sync`'s runner into a local
/// PostgreSQL (`PostgresServer`, started here), then `heartctl --central` per-day statistics and HRV over the range
/// as processes (wall time, peak memory), beside the naive `GROUP BY date_trunc('day', time)` over the expanded
/// tables by psql in the same run — the baseline PostgreSQL gives one row per beat or value.
struct ScaleCentral {
    let heartctl: String
    let store: String
    let workspace: Workspace
    let from: String
    let to: String
    /// Gateways in the database: `gw0` delivered, the others copied from it in SQL (`ScaleFleet`).
    var gateways = 1
    /// Another heartctl (`--baseline-heartctl`, e.g. main's) whose reads run on the same database beside this one's:
    /// each read three times, the two interleaved, the median of each and whether their answers are the same.
    var baselineHeartctl: String?
    /// `--hold-server`: keep the server after the reads until a file is removed (by-hand EXPLAIN on the fleet).
    var holdServer = false

    func measure(scale: Double, into table: inout ResultTable, overBound: inout [String]) async throws {
        let server = try PostgresServer(start: true)
        defer { server.remove() }
        let db = try server.createDatabase()
        let password = workspace.path("central-password")
        try PostgresServer.password.write(toFile: password, atomically: true, encoding: .utf8)
        var settings = SyncSettings()
        settings.url = db.url
        settings.tls = .disable
        settings.passwordFile = password
        settings.gateway = "gw0"
        settings.stateFile = workspace.path("central-state.json")
        settings.timeoutSeconds = 600
        let runner = SyncRunner(settings: settings, storePath: store, identity: GatewayIdentity(name: "gw0", version: "bench"),
                                connector: try CentralConnector(settings: settings, environment: [:]),
                                logger: SyncBenchmarkParts.silent)
        let delivered = try await Stopwatch.measureAsync { try await runner.run(once: true) }.seconds
        let beats = try server.integer("SELECT count(*) FROM beats", database: db.name)
        let points = try server.integer("SELECT count(*) FROM heart_rate", database: db.name)
        table.add("`heartd-sync` delivery into PostgreSQL (one gateway), wall", heartd: Fmt.s(delivered),
                  baseline: "\(Fmt.count(beats)) beats, \(Fmt.count(points)) heart-rate rows")
        if gateways > 1 { try copyFleet(server: server, database: db.name, beats: beats, points: points, into: &table) }
        let vacuumed = try Stopwatch.measure { try server.admin("VACUUM ANALYZE", database: db.name) }.seconds
        let bytes = try server.integer("SELECT pg_database_size(current_database())", database: db.name)
        table.add("`VACUUM ANALYZE` before the reads, wall", heartd: Fmt.s(vacuumed), baseline: "database \(Fmt.mib(Int64(bytes)))")

        let central = ["--central", db.url, "--central-tls", "disable", "--password-file", password]
        let range = ["--from", from, "--to", to]
        // One gateway (`--gateway gw0`, its devices' rows for psql) and, with copies, the whole fleet.
        let scopes: [Scope] = gateways == 1 ? [Scope(name: "", heartctl: [], rows: "true", gateways: 1)] : [
            Scope(name: " (gw0 of \(gateways))", heartctl: ["--gateway", "gw0"],
                  rows: "device IN (SELECT d.id FROM devices d JOIN gateways g ON g.id = d.last_gateway WHERE g.name = 'gw0')",
                  gateways: 1),
            Scope(name: " (all \(gateways) gateways)", heartctl: [], rows: "true", gateways: gateways),
        ]
        for scope in scopes {
            try measure(scope, central: central, range: range, server: server, database: db.name, scale: scale, into: &table,
                        overBound: &overBound)
        }
        if holdServer { try hold(server, database: db.name) }
    }

    /// Prints how to reach the server and waits until the hold file it names is removed.
    func hold(_ server: PostgresServer, database: String) throws {
        let file = workspace.path("hold-server")
        try "".write(toFile: file, atomically: true, encoding: .utf8)
        progress("heartbench scale: PostgreSQL held: \(server.bin)/psql -h \(server.socketDir) -p \(server.port) -U postgres -d \(database)"
            + " — remove \(file) to go on")
        while FileManager.default.fileExists(atPath: file) { usleep(500_000) }
    }

    /// Gateways gw1 … gw(N − 1) copied from gw0's rows by the server (`ScaleFleet`), each step timed; progress on stderr.
    func copyFleet(server: PostgresServer, database: String, beats: Int, points: Int, into table: inout ResultTable) throws {
        let samples = try server.integer("SELECT count(*) FROM samples", database: database)
        var steps: [String] = []
        var total = 0.0
        for step in ScaleFleet.steps(gateways: gateways) {
            progress("heartbench scale: fleet copy, \(step.name) …")
            let wall = try Stopwatch.measure { try server.admin(step.sql, database: database) }.seconds
            steps.append("\(step.name) \(Fmt.s(wall))")
            total += wall
        }
        let copied = try server.integer("SELECT count(*) FROM samples", database: database)
        guard copied == samples * gateways else {
            throw BenchmarkError("the fleet copy left \(copied) samples, not \(gateways) × \(samples)")
        }
        table.add("\(gateways - 1) more gateways copied from gw0 in SQL (`ScaleFleet`), wall (per gateway)",
                  heartd: "\(Fmt.s(total)) (\(Fmt.s(total / Double(gateways - 1))))",
                  baseline: "\(Fmt.count(beats * gateways)) beats, \(Fmt.count(points * gateways)) heart-rate rows, "
                      + "\(Fmt.count(copied)) samples in all; " + steps.joined(separator: ", "))
    }

    /// Per-day statistics and HRV over the range through `heartctl --central` for one scope, psql's naive `GROUP BY`
    /// over the same rows beside.
    func measure(_ scope: Scope, central: [String], range: [String], server: PostgresServer,
                 database: String, scale: Double, into table: inout ResultTable, overBound: inout [String]) throws {
        // A year of one strap is the target's unit: a read over the whole fleet spans `gateways` times the range's rows,
        // so its figure is scaled by what is left to a year (never below its own wall time).
        let factor = max(1, scale / Double(scope.gateways))
        let spans = scope.gateways == 1 ? "" : "\(scope.gateways) × the range = \(Fmt.fixed(Double(scope.gateways) / scale, 2)) strap-years; "
        let naiveStats = try naive("""
            SELECT date_trunc('day', time), min(bpm), avg(bpm), max(bpm), count(*) FROM heart_rate
            WHERE time >= '\(from)' AND time < '\(to)' AND \(scope.rows) GROUP BY 1
            """, server: server, database: database)
        let naiveBeats = try naive("""
            SELECT date_trunc('day', time), count(*), avg(rr_ms) FROM beats
            WHERE time >= '\(from)' AND time < '\(to)' AND \(scope.rows) GROUP BY 1
            """, server: server, database: database)
        let reads: [(name: String, arguments: [String], yearTarget: Double, baseline: String)] = [
            ("stats per day", ["stats", "--interval", "1d"], 1,
             "psql GROUP BY date_trunc: heart_rate \(Fmt.s(naiveStats)), beats \(Fmt.s(naiveBeats))"),
            ("hrv", ["hrv"], 2, "—"),
        ]
        for read in reads {
            // The range after the subcommand: before it heartctl stops at "Unknown option '--from'" (exit 2).
            let arguments = central + scope.heartctl + read.arguments + range
            var runs: [ChildRun] = [], baselineRuns: [ChildRun] = []
            for _ in 0..<(baselineHeartctl == nil ? 1 : 3) {
                runs.append(try ChildRun.run(heartctl, arguments, output: workspace.path("central-out")))
                if let baselineHeartctl {
                    baselineRuns.append(try ChildRun.run(baselineHeartctl, arguments, output: workspace.path("central-baseline-out")))
                }
            }
            let run = Self.median(runs)
            var baseline = read.baseline
            if !baselineRuns.isEmpty {
                let other = Self.median(baselineRuns)
                let same = FileManager.default.contentsEqual(atPath: workspace.path("central-out"), andPath: workspace.path("central-baseline-out"))
                baseline += "; baseline heartctl (median of 3, interleaved): \(Fmt.s(other.wall)), \(Fmt.mib(other.peakBytes))"
                    + (other.status == 0 ? "" : " (exit \(other.status))") + (same ? ", same answer" : ", **a different answer**")
            }
            if run.peakBytes > ScaleBenchmark.memoryTarget { overBound.append("heartctl --central \(read.name)\(scope.name)") }
            let ok = run.status == 0 && run.peakBytes <= ScaleBenchmark.memoryTarget && ScaleBenchmark.meets(read.yearTarget, wall: run.wall, scale: factor)
            table.add("`heartctl --central` \(read.name)\(scope.name): wall, peak memory" + (runs.count > 1 ? " (median of \(runs.count))" : ""),
                      heartd: "\(Fmt.s(run.wall)), \(Fmt.mib(run.peakBytes))" + (run.status == 0 ? "" : " (exit \(run.status))"),
                      baseline: baseline,
                      target: ScaleBenchmark.yearTarget(read.yearTarget, wall: run.wall, scale: factor,
                                                      detail: "\(spans)here × \(Fmt.fixed(factor, 1)) "),
                      verdict: Verdict(ok))
        }
    }

    /// The run of median wall time (the last on a tie), so its peak memory and status are of one real run.
    static func median(_ runs: [ChildRun]) -> ChildRun {
        runs.sorted { $0.wall < $1.wall }[runs.count / 2]
    }

    /// The gateways a read covers: heartctl's scope flags and the same rows for psql's naive query.
    struct Scope {
        let name: String
        let heartctl: [String]
        let rows: String
        let gateways: Int
    }

    /// The wall time of `sql` run by psql as the server's superuser over its socket (the query's own time and psql's).
    func naive(_ sql: String, server: PostgresServer, database: String) throws -> Double {
        let run = try ChildRun.run(server.bin + "/psql", ["-h", server.socketDir, "-p", "\(server.port)", "-U", "postgres",
                                                          "-d", database, "-v", "ON_ERROR_STOP=1", "-Atc", sql])
        guard run.status == 0 else { throw BenchmarkError("psql exited \(run.status) on \(sql)") }
        return run.wall
    }
}
