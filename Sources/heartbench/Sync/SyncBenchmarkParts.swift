import Foundation
import HealthModel
import HeartStore
import Logging
import PostgresNIO
import Sync
import TestBus

/// The pieces of `heartbench sync` besides the concurrent run: one gateway alone, the naive client, table
/// sizes, BRIN vs btree, and the steady-state delay.
enum SyncBenchmarkParts {
    static let silent = Logger(label: "heartbench", factory: { _ in SwiftLogNoOpLogHandler() })

    /// One gateway-day delivered with nobody else on the server (into a fresh database).
    static func syncAlone(store: String, settings: SyncSettings, server: PostgresServer) async throws -> Double {
        var s = settings
        s.url = try server.createDatabase().url
        s.stateFile += ".alone"
        let runner = SyncRunner(settings: s, storePath: store, identity: GatewayIdentity(name: s.gateway, version: "bench"),
                                connector: try CentralConnector(settings: s, environment: [:]), logger: silent)
        return try await Stopwatch.measureAsync { try await runner.run(once: true) }.seconds
    }

    struct Naive { var beats: Int; var seconds: Double; var tableBytes: Int64 }

    /// The naive client: one autocommitted INSERT per beat into a plain table with a bigserial key.
    static func naive(store: String, server: PostgresServer, database: String, url: String, password: String,
                      beats limit: Int) async throws -> Naive {
        try server.admin("""
            CREATE TABLE naive_beats (id bigserial PRIMARY KEY, gateway text, device text, time timestamptz, rr_ms real, gap boolean);
            GRANT ALL ON naive_beats, naive_beats_id_seq TO \(PostgresServer.user)
            """, database: database)
        let db = try HeartDatabase.openReadOnly(path: store)
        var rows: [(Date, Float?, Bool)] = []
        for series in try db.heartbeatSeries(from: .distantPast, to: .distantFuture) where rows.count < limit {
            var previous: Double?
            for beat in series.beats where rows.count < limit {
                let rr = beat.precededByGap ? nil : previous.map { Float(($0 - beat.offset) * -1000) }
                rows.append((series.start.addingTimeInterval(beat.offset), rr, beat.precededByGap))
                previous = beat.offset
            }
        }
        let connector = CentralConnector(url: try CentralURL(url), tls: .disable, password: password, timeoutSeconds: 60)
        let connection = try await connector.connect(logger: silent)
        let seconds = try await Stopwatch.measureAsync {
            for (time, rr, gap) in rows {
                try await connection.query("""
                    INSERT INTO naive_beats (gateway, device, time, rr_ms, gap) VALUES ('gw0', 'A0:9E:1A:00:00:01', \(time), \(rr), \(gap))
                    """, logger: silent)
            }
        }.seconds
        try await connection.close()
        let bytes = try server.integer("SELECT pg_total_relation_size('naive_beats')", database: database)
        return Naive(beats: rows.count, seconds: seconds, tableBytes: Int64(bytes))
    }

    struct Sizes { var samples: Int64; var beats: Int64; var heartRate: Int64; var heartRatePoints: Int }

    static func sizes(server: PostgresServer, database: String) throws -> Sizes {
        try server.admin("VACUUM ANALYZE", database: database)
        func size(_ table: String) throws -> Int64 {
            Int64(try server.integer("SELECT pg_total_relation_size('\(table)')", database: database))
        }
        return Sizes(samples: try size("samples"), beats: try size("beats"), heartRate: try size("heart_rate"),
                     heartRatePoints: try server.integer("SELECT count(*) FROM heart_rate", database: database))
    }

    struct IndexComparison { var brinBytes: Int64; var btreeBytes: Int64; var brinSeconds: Double; var btreeSeconds: Double }

    /// The beats table's BRIN index against a btree on the same column: size, and a one-hour query of one device.
    static func brinVersusBtree(server: PostgresServer, database: String) throws -> IndexComparison {
        let window = try server.admin("""
            SELECT device, extract(epoch FROM min(time) + interval '6 hours')::bigint FROM beats WHERE device IS NOT NULL
            GROUP BY device ORDER BY device LIMIT 1
            """, database: database).split(separator: "|")
        let query = "SELECT count(*) FROM beats WHERE device = \(window[0]) AND time >= to_timestamp(\(window[1])) "
            + "AND time < to_timestamp(\(window[1]) + 3600)"
        // The server's own execution time (EXPLAIN ANALYZE), so psql's start-up is not in the figure.
        func timed() throws -> Double {
            var times: [Double] = []
            for _ in 0..<5 {
                let plan = try server.admin("SET enable_seqscan = off; EXPLAIN ANALYZE " + query, database: database)
                guard let line = plan.split(separator: "\n").first(where: { $0.contains("Execution Time:") }),
                      let ms = Double(line.split(separator: " ").dropLast().last ?? "") else {
                    throw BenchmarkError("no execution time in the plan: \(plan)")
                }
                times.append(ms / 1000)
            }
            return times.sorted()[2]
        }
        let brinBytes = Int64(try server.integer("SELECT pg_relation_size('beats_time')", database: database))
        let brinSeconds = try timed()
        try server.admin("DROP INDEX beats_time; CREATE INDEX beats_time_btree ON beats (time); ANALYZE beats", database: database)
        let btreeBytes = Int64(try server.integer("SELECT pg_relation_size('beats_time_btree')", database: database))
        let btreeSeconds = try timed()
        try server.admin("DROP INDEX beats_time_btree; CREATE INDEX beats_time ON beats USING brin (time) WITH (pages_per_range = 32)",
                         database: database)
        return IndexComparison(brinBytes: brinBytes, btreeBytes: btreeBytes, brinSeconds: brinSeconds, btreeSeconds: btreeSeconds)
    }

    /// A store being written (a series saved every ~1.5 s, as a daemon finishing series) while `heartd-sync` runs
    /// with its default interval (`sync.interval`): seconds from each save to its row in the central database.
    static func steadyStateDelay(workspace: Workspace, settings: SyncSettings, rounds: Int, server: PostgresServer,
                                 database: String) async throws -> [Double] {
        let s = settings
        let store = try HeartDatabase(path: workspace.path("steady.sqlite"))
        try store.save([sample(at: Date())])  // the first round delivers this; then the loop waits
        let runner = SyncRunner(settings: s, storePath: workspace.path("steady.sqlite"),
                                identity: GatewayIdentity(name: s.gateway, version: "bench"),
                                connector: try CentralConnector(settings: s, environment: [:]), logger: silent)
        let task = Task { try await runner.run(once: false) }
        defer { task.cancel() }
        var delays: [Double] = []
        for _ in 0..<rounds {
            try await Task.sleep(nanoseconds: 1_500_000_000)
            let series = sample(at: Date())
            let saved = ContinuousClock.now
            try store.save([series])
            while try server.integer("SELECT count(*) FROM samples WHERE uuid = '\(series.uuid)'", database: database) == 0 {
                guard (ContinuousClock.now - saved).seconds < 30 else { throw BenchmarkError("a series never reached PostgreSQL") }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            delays.append((ContinuousClock.now - saved).seconds)
        }
        return delays
    }

    /// A finished 100-beat heartbeat series ending now.
    static func sample(at end: Date) -> Sample {
        let beats = (1...100).map { Beat(offset: Double($0) * 0.8, precededByGap: $0 == 1) }
        return .heartbeatSeries(HeartbeatSeriesSample(start: end.addingTimeInterval(-80), end: end, beats: beats,
                                                      device: nil, metadata: [:]))
    }
}
