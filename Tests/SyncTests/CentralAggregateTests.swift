import Foundation
import HealthModel
import HeartStore
import TestBus
import Testing
@testable import Sync

/// `heartctl --central stats` (PostgreSQL's per-bucket totals) and `hrv` over a range (series streamed through a
/// server-side cursor) answer as `--db` does on the gateway's own store, and heartctl's memory does not grow
/// with the range.
@Suite(.serialized) struct CentralAggregateTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    static func json(_ text: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    }

    @Test func statsAndHRVAreComputedCentrallyAsTheStoreComputesThem() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url)
        defer { a.remove() }
        // Series from 23:50 to past 00:10 UTC: 2-s heart-rate points straddle hour, 10-minute and day bounds.
        let t0 = Date(timeIntervalSince1970: 1_790_034_600) // 2026-09-21T23:50:00Z
        try a.store.fill(series: 5, beats: 300, start: t0)
        var other = GatewayStore.strap
        other.localIdentifier = "A0:9E:1A:65:43:21"
        other.metadata[MetadataKey.serialNumber] = "99999999"
        try a.store.fill(series: 2, beats: 200, start: t0.addingTimeInterval(97), device: other, metadata: ["subject": "S02"])
        try await a.runner().run(once: true)
        let central = ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
        let local = ["--db", a.store.path]
        let range = ["--from", "2026-09-21T23:00:00Z", "--to", "2026-09-22T01:00:00Z"]
        let reads: [[String]] = [
            ["stats"] + range,
            ["stats", "--interval", "1h"] + range,
            ["stats", "--interval", "10m", "--anchor", "2026-09-21T23:03:00Z"] + range,
            ["stats", "--interval", "90s", "--by-device"] + range,
            // Past `CentralBucketQuery.lookupLimit` buckets the most recent value comes through the aggregate.
            ["stats", "--interval", "5s"] + range,
            ["stats", "--interval", "1d", "--device", "A0:9E:1A:65:43:21"] + range,
            ["stats", "--meta", "subject=S02"] + range,
            ["stats", "--from", "2026-09-21T23:55:01Z", "--to", "2026-09-22T00:01:03Z", "--interval", "7s"],
            ["stats", "--interval", "1h", "--from", "2026-09-23", "--to", "2026-09-24"],
            // Whole hours come from the hourly roll-up (`CentralRollup`), the rest row by row: a range that starts and
            // ends inside an hour, buckets of two hours, and a grid off the hour (no roll-up).
            ["stats", "--interval", "1h", "--from", "2026-09-21T23:20:00Z", "--to", "2026-09-22T01:10:00Z"],
            ["stats", "--interval", "2h", "--from", "2026-09-21T20:00:00Z", "--to", "2026-09-22T04:00:00Z"],
            ["stats", "--from", "2026-09-21T22:59:59Z", "--to", "2026-09-22T00:00:01Z"],
            ["stats", "--interval", "1h", "--anchor", "2026-09-21T23:30:00Z", "--from", "2026-09-21T23:00:00Z",
             "--to", "2026-09-22T02:00:00Z"],
            ["hrv"] + range,
            ["hrv", "--device", "A0:9E:1A:65:43:21"] + range,
            ["hrv", "--from", "2026-09-21T23:55:00Z", "--to", "2026-09-22T00:05:00Z"],
        ]
        for read in reads {
            let c = try await runHeartctl(central + read + ["--json"], in: a.dir)
            let l = try await runHeartctl(local + read + ["--json"], in: a.dir)
            #expect(c.status == 0 && c.status == l.status, "\(read): exit \(c.status), --db \(l.status)")
            // `open_series` is the gateway's own (series still being recorded there): the central database holds
            // only delivered, finished series, so it has no such count.
            var local = try Self.json(l.output)
            if var object = local as? [String: Any] {
                object["open_series"] = nil
                local = object
            }
            // PostgreSQL keeps microseconds and the store 1/1024-s ticks, which are not whole microseconds: a point's
            // bounds move by up to 0.5 µs on the way, its 1–2 s weight by ~1e-7 of itself, a bucket's mean less.
            let same = sameJSON(try Self.json(c.output), local, tolerance: 1e-6)
            #expect(same, "\(read.joined(separator: " ")):\n--central \(c.output)\n--db      \(l.output)")
        }
        // Something was counted: the comparison is not of two empty answers.
        let day = try await runHeartctl(central + ["stats", "--json"] + range, in: a.dir)
        let count = (try Self.json(day.output) as? [String: Any])?["statistics"] as? [String: Any]
        #expect((count?["count"] as? Int ?? 0) > 900)
        // HRV: the same code on the same beats, so the table is the same text.
        let c = try await runHeartctl(central + ["hrv"] + range, in: a.dir)
        let l = try await runHeartctl(local + ["hrv"] + range, in: a.dir)
        #expect(c.output == l.output && c.output.contains("CORRECTED"))
        // Too few beats is the same error.
        let none = try await runHeartctl(central + ["hrv", "--from", "2026-01-01", "--to", "2026-01-02"], in: a.dir)
        #expect(none.status == 4)
        // A deleted series leaves the roll-up with its rows: the hours still answer as the store does.
        try a.store.database.delete(uuid: try #require(a.store.database.samples(type: QuantityType.heartRate.identifier).first).uuid)
        try await a.runner().run(once: true)
        let hourly = ["stats", "--json", "--interval", "1h"] + range
        let after = (try await runHeartctl(central + hourly, in: a.dir), try await runHeartctl(local + hourly, in: a.dir))
        var stored = try Self.json(after.1.output)
        if var object = stored as? [String: Any] {
            object["open_series"] = nil
            stored = object
        }
        #expect(sameJSON(try Self.json(after.0.output), stored, tolerance: 1e-6), "after a deletion:\n\(after.0.output)\n\(after.1.output)")
        let whole = try await runHeartctl(central + ["stats", "--json"] + range, in: a.dir)
        let left = (try Self.json(whole.output) as? [String: Any])?["statistics"] as? [String: Any]
        #expect((left?["count"] as? Int ?? 0) < (count?["count"] as? Int ?? 0), "the deleted series' points are gone")
    }

    /// `--central stats` over whole hours reads the hourly roll-up, not the rows (issue 31: a year < 1 s): PostgreSQL's
    /// own counters of rows read, after heartctl's connection ends, show no `heart_rate` row read for a range of whole
    /// hours and only the rows around its edges for a range that starts and ends inside an hour.
    @Test func centralStatsOverWholeHoursReadTheRollupNotTheRows() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url)
        defer { a.remove() }
        let t0 = Date(timeIntervalSince1970: 1_789_948_800) // a midnight UTC
        try a.store.fillHours(12, start: t0)
        try await a.runner().run(once: true)
        // The BRIN ranges summarized, as autovacuum summarizes them after a delivery (`autosummarize`).
        _ = try server.admin("VACUUM ANALYZE", database: db.name)
        let central = ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
        let rows = try server.integer("SELECT count(*) FROM heart_rate", database: db.name)
        func read(from: Double, to: Double) async throws -> (rows: Int, hourly: Int) {
            _ = try server.admin("SELECT pg_stat_reset()", database: db.name)
            let iso = ISO8601DateFormatter()
            let run = try await runHeartctl(central + ["stats", "--interval", "1h", "--from", iso.string(from: t0.addingTimeInterval(from)),
                                                       "--to", iso.string(from: t0.addingTimeInterval(to))], in: a.dir)
            #expect(run.status == 0, "\(run.output)")
            func counted(_ pattern: String, _ column: String) throws -> Int {
                try server.integer("SELECT coalesce(sum(\(column)), 0) FROM pg_stat_user_tables WHERE relname ~ '\(pattern)'",
                                   database: db.name)
            }
            // The server counts a backend's reads when it ends: wait for the roll-up's to show.
            #expect(await eventually { try counted("^heart_rate_hourly_", "seq_scan + coalesce(idx_scan, 0)") > 0 })
            return (try counted("^heart_rate_[0-9]", "seq_tup_read + coalesce(idx_tup_fetch, 0)"),
                    try counted("^heart_rate_hourly_", "seq_scan + coalesce(idx_scan, 0)"))
        }
        let whole = try await read(from: 0, to: 12 * 3600)
        #expect(whole.rows == 0, "whole hours: \(whole.rows) of \(rows) heart_rate rows read")
        // The partial first and last hours, a BRIN block range (~1 h of rows here) around each, and the most recent
        // value's lookup in the two edge buckets: about a third of twelve hours' rows; every row would be 43,200.
        let inside = try await read(from: 20 * 60, to: 11 * 3600 + 40 * 60)
        #expect(inside.rows > 0 && inside.rows < rows / 2, "from 00:20 to 11:40: \(inside.rows) of \(rows) heart_rate rows read")
    }

    /// A read's peak memory in heartctl does not grow with the range: three days of a strap (one heartbeat and one
    /// 1 Hz heart-rate series an hour) against six hours of it. `hrv` keeps a range's beats for its full analysis up
    /// to `HRVRange.analysisBeatLimit` wherever they come from, so there `--central` must cost no more than `--db`
    /// over the same twelve hours.
    @Test func centralReadsKeepHeartctlsMemoryBounded() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url)
        defer { a.remove() }
        let t0 = Date(timeIntervalSince1970: 1_789_948_800) // a midnight UTC
        let days = 3
        try a.store.fillHours(days * 24, start: t0)
        var settings = a.settings
        settings.batchSize = 500
        try await a.runner(settings: settings).run(once: true)
        let central = ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
        func range(hours: Int) -> [String] {
            ["--from", ISO8601DateFormatter().string(from: t0),
             "--to", ISO8601DateFormatter().string(from: t0.addingTimeInterval(Double(hours) * 3600))]
        }
        for read in [["stats", "--interval", "1d"], ["stats", "--interval", "1h"]] {
            let s = try heartctlPeakMemory(central + read + range(hours: 6), in: a.dir)
            let l = try heartctlPeakMemory(central + read + range(hours: days * 24), in: a.dir)
            let long = read + range(hours: days * 24)
            #expect(s.status == 0 && l.status == 0, "\(long): exit \(s.status), \(l.status)")
            #expect(l.peakKiB <= 64 * 1024, "\(long): \(l.peakKiB) KiB")
            #expect(l.peakKiB - s.peakKiB <= 8 * 1024, "\(long): \(s.peakKiB) KiB for 6 h, \(l.peakKiB) KiB for \(days) days")
        }
        // Twelve hours (54,000 beats) for `hrv`: both ends keep its beats for the full analysis, whose debug build
        // took ~35 s of CPU for three days; a copy per row (a dictionary, a boxed value) would still show tens of MiB.
        let hrv = ["hrv"] + range(hours: 12)
        let c = try heartctlPeakMemory(central + hrv, in: a.dir)
        let l = try heartctlPeakMemory(["--db", a.store.path] + hrv, in: a.dir)
        #expect(c.status == 0 && l.status == 0, "\(hrv): exit \(c.status), --db \(l.status)")
        #expect(c.peakKiB <= l.peakKiB + 8 * 1024, "\(hrv): --central \(c.peakKiB) KiB, --db \(l.peakKiB) KiB")
    }
}
