import Foundation
import HealthModel
import HeartQueries
import HeartStore
import Logging
import TestBus
import Testing
@testable import Sync

/// The roll-ups' `gateway` column (schema 7, `CentralRollupGateway`): `--central --gateway` statistics and HRV read only
/// that gateway's roll-up rows, answering as before (and as the gateway's store), and a schema-6 database with rows
/// migrates to it and reads the same.
@Suite(.serialized) struct CentralRollupGatewayTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    static let t0 = Date(timeIntervalSince1970: 1_789_948_800) // 2026-09-21T00:00:00Z
    static let range = ["--from", "2026-09-21T00:00:00Z", "--to", "2026-09-21T12:00:00Z"]

    /// Two gateways delivered by heartd-sync — `gw0` (12 hours of a strap) and `gwB` (another strap, hours that overlap
    /// gw0's) — and, with `copies`, gw0 copied as `gw1` … by `ScaleFleet`.
    func fleet(_ db: (name: String, url: String), copies: Int = 0) async throws -> (a: SyncFixture, b: SyncFixture) {
        let a = try SyncFixture(url: db.url, gateway: "gw0"), b = try SyncFixture(url: db.url, gateway: "gwB")
        try a.store.fillHours(12, start: Self.t0)
        var other = GatewayStore.strap
        other.localIdentifier = "A0:9E:1A:65:43:21"
        other.metadata[MetadataKey.serialNumber] = "99999999"
        try b.store.fill(series: 4, beats: 3000, start: Self.t0.addingTimeInterval(1800), device: other)
        try await a.runner().run(once: true)
        try await b.runner().run(once: true)
        for step in ScaleFleet.steps(gateways: copies + 1) { try server.admin(step.sql, database: db.name) }
        _ = try server.admin("VACUUM ANALYZE", database: db.name)
        return (a, b)
    }

    func central(_ a: SyncFixture, _ db: (name: String, url: String)) -> [String] {
        ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
    }

    /// The hourly statistics over the range (JSON) of `gateway`, or of the whole fleet.
    func stats(_ a: SyncFixture, _ db: (name: String, url: String), gateway: String?) async throws -> String {
        let scope = gateway.map { ["--gateway", $0] } ?? []
        let run = try await runHeartctl(central(a, db) + scope + ["stats", "--interval", "1h", "--json"] + Self.range, in: a.dir)
        #expect(run.status == 0, "\(gateway ?? "all"): \(run.output)")
        return run.output
    }

    /// The HRV roll-up's sums of `f` over the range, on a connection closed before it returns.
    func hrvSums(_ a: SyncFixture, _ f: CentralReader.Filter) async throws -> HeartbeatHourSums? {
        let reader = try await CentralReader.open(connector: a.connector(), logger: Logger(label: "test"))
        let sums = try await reader.heartbeatRollup(f, beatsAbove: 0)
        await reader.close()
        return sums
    }

    /// Rows of the partitions of `table` read since the last `pg_stat_reset()`, once a scan of them shows (the server
    /// counts a backend's reads when its transaction ends and the statistics are flushed).
    func rowsRead(_ table: String, _ db: String) async throws -> Int {
        func counted(_ column: String) throws -> Int {
            try server.integer("SELECT coalesce(sum(\(column)), 0) FROM pg_stat_user_tables WHERE relname ~ '^\(table)_[0-9]'",
                               database: db)
        }
        #expect(await eventually { try counted("seq_scan + coalesce(idx_scan, 0)") > 0 }, "\(table) was read")
        return try counted("seq_tup_read + coalesce(idx_tup_fetch, 0)")
    }

    /// Issue 31's fleet finding: `--gateway` filtered the roll-ups by `sample IN (its samples)`, which reached every
    /// gateway's rows of the range. At this size (tens of rows, one page) a sequential scan is cheapest whatever the
    /// condition, so sequential scans are off for the database: the counters then show which rows the statements'
    /// conditions reach through an index — at a fleet's size the planner's own choice (docs/CENTRAL.md).
    @Test func oneGatewaysReadsTouchOnlyItsOwnRollupRows() async throws {
        let db = try server.createDatabase()
        let (a, b) = try await fleet(db, copies: 2)
        defer { a.remove(); b.remove() }
        _ = try server.admin("ALTER DATABASE \(db.name) SET enable_seqscan = off", database: db.name)
        let own = try server.integer("SELECT count(*) FROM heart_rate_hourly h JOIN gateways g ON g.id = h.gateway WHERE g.name = 'gw0'",
                                     database: db.name)
        let all = try server.integer("SELECT count(*) FROM heart_rate_hourly", database: db.name)
        #expect(own >= 12 && all >= 3 * own + 4, "gw0's roll-up rows \(own) of \(all)")

        _ = try server.admin("SELECT pg_stat_reset()", database: db.name)
        let gw0 = try await stats(a, db, gateway: "gw0")
        let read = try await rowsRead("heart_rate_hourly", db.name)
        // Two statements (the totals and the crossing points), each over gw0's rows at most.
        #expect(read <= 2 * own, "--gateway gw0 stats read \(read) heart_rate_hourly rows; gw0 has \(own) of \(all)")
        // The same answers: gw0 as its own store gives them, its copies as gw0, gwB as its store.
        let local = try await runHeartctl(["--db", a.store.path, "stats", "--interval", "1h", "--json"] + Self.range, in: a.dir)
        #expect(try sameStats(gw0, local.output), "gw0:\n\(gw0)\n--db:\n\(local.output)")
        #expect(try await stats(a, db, gateway: "gw2") == gw0)
        let gwB = try await stats(a, db, gateway: "gwB")
        let localB = try await runHeartctl(["--db", b.store.path, "stats", "--interval", "1h", "--json"] + Self.range, in: b.dir)
        #expect(try sameStats(gwB, localB.output), "gwB:\n\(gwB)\n--db:\n\(localB.output)")

        // HRV from its roll-up: gw0's rows only, the sums those of gw0's strap (the samples' path) and of its copy.
        let hrvOwn = try server.integer("SELECT count(*) FROM hrv_hourly h JOIN gateways g ON g.id = h.gateway WHERE g.name = 'gw0'",
                                        database: db.name)
        let filter = CentralReader.Filter(gateway: "gw0", from: Self.t0, to: Self.t0.addingTimeInterval(12 * 3600))
        _ = try server.admin("SELECT pg_stat_reset()", database: db.name)
        let sums = try #require(try await hrvSums(a, filter))
        let hrvRead = try await rowsRead("hrv_hourly", db.name)
        #expect(hrvRead <= hrvOwn, "--gateway gw0 hrv read \(hrvRead) hrv_hourly rows; gw0 has \(hrvOwn)")
        var byDevice = filter
        byDevice.gateway = nil
        byDevice.device = GatewayStore.strap.localIdentifier
        var copy = filter
        copy.gateway = "gw1"
        #expect(try sameSums(try await hrvSums(a, byDevice), sums), "gw0's sums through its strap's samples")
        #expect(try sameSums(try await hrvSums(a, copy), sums), "gw1's sums")
        #expect(sums.count > 12 * 4000)
    }

    /// A schema-6 database with two gateways' rows (the column and its index dropped, the version set back, and a
    /// roll-up row of no sample as only a hand could insert) migrates at heartd-sync's next connect: every row gets its
    /// sample's gateway, the column is NOT NULL and indexed in every partition, and every read answers as before.
    @Test func aSchemaSixDatabaseMigratesAndReadsTheSame() async throws {
        let db = try server.createDatabase()
        let (a, b) = try await fleet(db)
        defer { a.remove(); b.remove() }
        let hrv = CentralReader.Filter(gateway: "gwB", from: Self.t0, to: Self.t0.addingTimeInterval(12 * 3600))
        let before = (try await stats(a, db, gateway: "gw0"), try await stats(a, db, gateway: "gwB"), try await stats(a, db, gateway: nil),
                      try await hrvSums(a, hrv))
        for table in CentralRollupGateway.tables {
            _ = try server.admin("ALTER TABLE \(table) DROP COLUMN gateway", database: db.name)
        }
        _ = try server.admin("""
            UPDATE heartd_schema SET version = 6;
            INSERT INTO heart_rate_hourly (cell, device, sample, n) VALUES ('2026-09-21T03:00:00Z', NULL, gen_random_uuid(), 0)
            """, database: db.name)
        try await a.runner().run(once: true)
        #expect(try server.integer("SELECT version FROM heartd_schema", database: db.name) == CentralSchema.version)
        for table in CentralRollupGateway.tables {
            let rows = try server.integer("SELECT count(*) FROM \(table)", database: db.name)
            let matching = try server.integer("SELECT count(*) FROM \(table) r JOIN samples s ON s.uuid = r.sample AND s.gateway = r.gateway",
                                              database: db.name)
            #expect(rows > 0 && matching == rows, "\(table): \(matching) of \(rows) rows carry their sample's gateway")
            #expect(try server.admin("SELECT attnotnull FROM pg_attribute WHERE attrelid = '\(table)'::regclass AND attname = 'gateway'",
                                     database: db.name) == "t")
            let partitions = try server.integer("SELECT count(*) FROM pg_inherits WHERE inhparent = '\(table)'::regclass", database: db.name)
            let indexed = try server.integer("""
                SELECT count(*) FROM pg_inherits h JOIN pg_index i ON i.indrelid = h.inhrelid
                JOIN pg_attribute t ON t.attrelid = i.indrelid AND t.attnum = i.indkey[0]
                WHERE h.inhparent = '\(table)'::regclass AND t.attname = 'gateway'
                """, database: db.name)
            #expect(partitions > 0 && indexed == partitions, "\(table): (gateway, cell) indexed in \(indexed) of \(partitions) partitions")
        }
        let after = (try await stats(a, db, gateway: "gw0"), try await stats(a, db, gateway: "gwB"), try await stats(a, db, gateway: nil),
                     try await hrvSums(a, hrv))
        for (x, y) in [(after.0, before.0), (after.1, before.1), (after.2, before.2)] {
            #expect(try sameStats(x, y), "after the migration:\n\(x)\nbefore:\n\(y)")
        }
        #expect(try sameSums(after.3, before.3) && after.3 != nil, "gwB's HRV sums")
        // New rows after the migration carry their gateway too.
        try b.store.fill(series: 1, beats: 500, start: Self.t0.addingTimeInterval(10 * 3600))
        try await b.runner().run(once: true)
        #expect(try server.integer("SELECT count(*) FROM heart_rate_hourly r JOIN samples s ON s.uuid = r.sample WHERE s.gateway <> r.gateway",
                                   database: db.name) == 0)
    }

    /// The same HRV sums, but for the order PostgreSQL added them in: the counts equal, the sums and the metrics from
    /// them within 1e-9 of each other.
    func sameSums(_ x: HeartbeatHourSums?, _ y: HeartbeatHourSums?) throws -> Bool {
        guard let x, let y else { return x == nil && y == nil }
        let (p, q) = (try HRVRange.rolledUp(x), try HRVRange.rolledUp(y))
        func near(_ u: Double, _ v: Double) -> Bool { abs(u - v) <= 1e-9 * max(1, abs(u), abs(v)) }
        return x.count == y.count && x.differences == y.differences && x.over50 == y.over50 && x.over20 == y.over20
            && near(x.squaredDifferences, y.squaredDifferences) && near(x.rateSum, y.rateSum) && near(p.sdnnMs, q.sdnnMs)
            && near(p.rmssdMs ?? 0, q.rmssdMs ?? 0)
    }

    /// `--central` against `--db` statistics (JSON), the gateway's open series left out (the central database holds
    /// only finished ones) and numbers within PostgreSQL's microseconds (as `CentralAggregateTests`).
    func sameStats(_ central: String, _ local: String) throws -> Bool {
        var stored = try JSONSerialization.jsonObject(with: Data(local.utf8))
        if var object = stored as? [String: Any] {
            object["open_series"] = nil
            stored = object
        }
        return sameJSON(try JSONSerialization.jsonObject(with: Data(central.utf8)), stored, tolerance: 1e-6)
    }
}
