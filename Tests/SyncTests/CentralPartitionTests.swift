import Foundation
import HealthModel
import Logging
import TestBus
import Testing
@testable import Sync

/// The expanded tables partitioned by month (schema 3): rows land in their month's partition, `heartd-sync` makes
/// next month's before it is needed, the migration moves version 3's rows, and an old month detaches without
/// breaking `heartctl --central`.
@Suite(.serialized) struct CentralPartitionTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    /// The partitions of `table` with their row counts, by name.
    func partitions(_ table: String, _ db: String) throws -> [String: Int] {
        let rows = try server.admin("""
            SELECT c.relname, (xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I', c.relname), false, true, '')))[1]::text
            FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = '\(table)'::regclass ORDER BY 1
            """, database: db)
        var out: [String: Int] = [:]
        for line in rows.split(separator: "\n") {
            let f = line.split(separator: "|")
            if f.count == 2 { out[String(f[0])] = Int(f[1]) }
        }
        return out
    }

    static func month(_ date: Date) -> String {
        let c = Calendar.utcGregorian.dateComponents([.year, .month], from: date)
        return String(format: "%04d_%02d", c.year ?? 0, c.month ?? 0)
    }

    @Test func rowsLandInTheirMonthAndNextMonthIsReadyAhead() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url)
        defer { a.remove() }
        // 23:56 on the last day of September: the series run into October.
        let t0 = Date(timeIntervalSince1970: 1_790_812_560) // 2026-09-30T23:56:00Z
        try a.store.fill(series: 4, beats: 300, start: t0)
        try await a.runner().run(once: true)
        let beats = try partitions("beats", db.name), heartRate = try partitions("heart_rate", db.name)
        let expected = try a.store.expected()
        #expect((beats["beats_2026_09"] ?? 0) > 0 && (beats["beats_2026_10"] ?? 0) > 0, "\(beats)")
        #expect(beats.values.reduce(0, +) == expected.beats)
        #expect(heartRate.values.reduce(0, +) == expected.heartRate)
        #expect(try server.integer("SELECT count(*) FROM beats_2026_09 WHERE time >= '2026-10-01T00:00:00Z'", database: db.name) == 0)
        #expect(try server.integer("SELECT count(*) FROM beats_2026_10 WHERE time < '2026-10-01T00:00:00Z'", database: db.name) == 0)
        // This month's and the next month's partitions exist before any row of theirs (heartd-sync made them at connect).
        let now = Date(), next = Calendar.utcGregorian.date(byAdding: .month, value: 1, to: now) ?? now
        for name in ["beats_" + Self.month(now), "heart_rate_" + Self.month(next), "beats_" + Self.month(next)] {
            #expect(try partitions(name.hasPrefix("beats") ? "beats" : "heart_rate", db.name)[name] != nil, "\(name) exists")
        }
    }

    @Test func anOldMonthDetachesAndReadsGoOn() async throws {
        let db = try server.createDatabase()
        var a = try SyncFixture(url: db.url)
        defer { a.remove() }
        // The first connect migrates a new database through every version within the deadline: not the fixture's 5 s
        // while the whole suite runs on a loaded machine (this test is about partitions, not timeouts).
        a.settings.timeoutSeconds = 30
        try a.store.fill(series: 3, beats: 200, start: Date(timeIntervalSince1970: 1_788_000_000)) // 2026-08-29
        try a.store.fill(series: 3, beats: 200, start: Date(timeIntervalSince1970: 1_790_000_000)) // 2026-09-21
        try await a.runner().run(once: true)
        try server.admin("ALTER TABLE beats DETACH PARTITION beats_2026_08; ALTER TABLE heart_rate DETACH PARTITION heart_rate_2026_08; "
                         + "ALTER TABLE heart_rate_hourly DETACH PARTITION heart_rate_hourly_2026_08", database: db.name)
        let central = ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
        // HRV reads the compact series in `samples`, which keep every month: the same as the store over August.
        let august = ["--from", "2026-08-01", "--to", "2026-09-01"]
        let c = try await runHeartctl(central + ["hrv"] + august, in: a.dir)
        let l = try await runHeartctl(["--db", a.store.path, "hrv"] + august, in: a.dir)
        #expect(c.status == 0 && c.output == l.output)
        // Statistics read the expanded rows: September's still answer, August's are gone with its partition.
        let september = try await runHeartctl(central + ["stats", "--json", "--from", "2026-09-01", "--to", "2026-10-01"], in: a.dir)
        #expect(september.status == 0 && september.output.contains("\"count\""))
        let gone = try await runHeartctl(central + ["stats", "--json"] + august, in: a.dir)
        #expect(gone.status == 0 && gone.output.contains("\"count\":0,"), "\(gone.output)")
        // New rows of another month still arrive; the detached table stays as it was.
        try a.store.fill(series: 1, beats: 100, start: Date(timeIntervalSince1970: 1_792_000_000)) // October
        try await a.runner().run(once: true)
        #expect(try server.integer("SELECT count(*) FROM beats_2026_10", database: db.name) == 100)
        #expect(try server.integer("SELECT count(*) FROM beats_2026_08", database: db.name) == 600)
    }

    /// A version-3 database (unpartitioned `beats`, `heart_rate`) migrates: its rows move into monthly partitions.
    @Test func theMigrationMovesVersionThreesRows() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url)
        defer { a.remove() }
        var statements = ["CREATE TABLE heartd_schema (id int PRIMARY KEY CHECK (id = 1), version int NOT NULL)",
                          "INSERT INTO heartd_schema VALUES (1, 3)"]
        statements += CentralSchema.v1 + CentralSchema.v2 + CentralSchema.v3People
        statements += [
            "INSERT INTO beats (time, device, rr_ms, preceded_by_gap, sample) VALUES ('2025-03-04T05:06:07Z', NULL, 812.5, false, gen_random_uuid())",
            "INSERT INTO heart_rate (time, device, bpm, sample) VALUES ('2025-05-04T05:06:07Z', NULL, 71, gen_random_uuid())",
        ]
        for sql in statements { try server.admin("SET ROLE \(PostgresServer.user); " + sql, database: db.name) }
        try a.store.fill(series: 1, beats: 50)
        try await a.runner().run(once: true)
        #expect(try server.integer("SELECT version FROM heartd_schema", database: db.name) == CentralSchema.version)
        #expect(try partitions("beats", db.name)["beats_2025_03"] == 1)
        #expect(try partitions("heart_rate", db.name)["heart_rate_2025_05"] == 1)
        #expect(try server.integer("SELECT count(*) FROM beats_2025_04", database: db.name) == 0, "every month between")
        #expect(try server.integer("SELECT count(*) FROM beats", database: db.name) == 51)
    }
}

extension Calendar {
    static let utcGregorian: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC") ?? .current
        return c
    }()
}
