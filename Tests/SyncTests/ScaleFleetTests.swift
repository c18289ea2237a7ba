import Foundation
import TestBus
import Testing

/// `heartbench scale --gateways N` copies gw0's delivered rows into N − 1 more gateways in SQL (`ScaleFleet`): a copy
/// must read exactly as its original through `heartctl --central` (per-day and per-hour statistics, HRV from the
/// roll-ups and from the rows), the fleet must count N times gw0, and the expanded tables' indexes the copy drops
/// and creates again must be back on every partition.
@Suite(.serialized) struct ScaleFleetTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    @Test func aCopiedGatewayReadsAsGw0() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url, gateway: "gw0")  // the gateway the copies are made of
        defer { a.remove() }
        let t0 = Date(timeIntervalSince1970: 1_790_033_400) // 2026-09-21T23:30:00Z: the copy spans two days
        try a.store.fillHours(4, start: t0)
        try await a.runner().run(once: true)
        let indexes = "SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relname ~ '^(beats|heart_rate)_' AND i.indisvalid"
        let indexesBefore = try server.integer(indexes, database: db.name)
        for step in ScaleFleet.steps(gateways: 3) { try server.admin(step.sql, database: db.name) }

        let central = ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
        let range = ["--from", "2026-09-21T00:00:00Z", "--to", "2026-09-23T00:00:00Z"]
        let reads: [[String]] = [
            ["stats", "--interval", "1d", "--json"] + range,
            ["stats", "--interval", "1h", "--json", "--from", "2026-09-21T23:40:00Z", "--to", "2026-09-22T02:50:00Z"],
            ["hrv"] + range,  // from the rows (the HRV roll-up answers past 500,000 beats: compared in SQL below)
            ["hrv", "--from", "2026-09-22T00:10:00Z", "--to", "2026-09-22T00:50:00Z"],
        ]
        for read in reads {
            let original = try await runHeartctl(central + ["--gateway", "gw0"] + read, in: a.dir)
            #expect(original.status == 0, "\(read): \(original.output)")
            for copy in ["gw1", "gw2"] {
                let copied = try await runHeartctl(central + ["--gateway", copy] + read, in: a.dir)
                #expect(copied.status == 0 && copied.output == original.output,
                        "\(copy) \(read.joined(separator: " ")):\n\(copied.output)\ngw0:\n\(original.output)")
            }
        }
        // The whole fleet: three times gw0's points, and its samples, devices and rows each under their own gateway.
        func count(_ output: String) throws -> Int {
            let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
            return (object?["statistics"] as? [String: Any])?["count"] as? Int ?? -1
        }
        let one = try await runHeartctl(central + ["--gateway", "gw0", "stats", "--json"] + range, in: a.dir)
        let all = try await runHeartctl(central + ["stats", "--json"] + range, in: a.dir)
        #expect(try count(one.output) > 4 * 3000 && count(all.output) == 3 * count(one.output))
        let perGateway = try server.admin("""
            SELECT string_agg(g.name || ':' || (SELECT count(*) FROM samples s WHERE s.gateway = g.id)
                              || ':' || (SELECT count(*) FROM beats b JOIN devices d ON d.id = b.device WHERE d.last_gateway = g.id),
                              ',' ORDER BY g.name) FROM gateways g
            """, database: db.name)
        let parts = perGateway.split(separator: ",").map { $0.split(separator: ":").dropFirst().joined(separator: ":") }
        #expect(parts.count == 3 && Set(parts).count == 1, "samples and beats per gateway: \(perGateway)")
        // The roll-ups' rows, joined to their gateway through the copied sample: the same sums.
        let rollups = [("hrv_hourly", "cell, n, k, s, ss, hr, dn, dd, o50, o20"), ("heart_rate_hourly", "cell, n, lo, hi, s, sw, w, mt, m, rest")]
        for (table, columns) in rollups {
            func rows(_ gateway: String, _ select: String) -> String {
                "SELECT \(select) FROM \(table) h JOIN samples x ON x.uuid = h.sample JOIN gateways g ON g.id = x.gateway WHERE g.name = '\(gateway)'"
            }
            let counts = try server.admin("SELECT (\(rows("gw0", "count(*)"))), "
                + "(SELECT count(*) FROM (\(rows("gw0", columns)) EXCEPT ALL \(rows("gw2", columns))) d), "
                + "(SELECT count(*) FROM (\(rows("gw2", columns)) EXCEPT ALL \(rows("gw0", columns))) d)", database: db.name)
            let c = counts.split(separator: "|")
            #expect(c.count == 3 && (Int(c[0]) ?? 0) > 0 && c[1] == "0" && c[2] == "0", "\(table): gw0's rows, gw0 − gw2, gw2 − gw0: \(counts)")
        }
        #expect(try server.integer(indexes, database: db.name) == indexesBefore, "the partitions' BRIN indexes are back")
        #expect(try server.integer("SELECT count(*) FROM pg_class WHERE relname LIKE 'fleet_%'", database: db.name) == 0)
    }
}
