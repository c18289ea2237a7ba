import Foundation
import HealthModel
import TestBus
import Testing
@testable import Sync

/// `heartctl --central`: the same answers as `--db`, over every gateway, with `--gateway` and `--device`.
@Suite(.serialized) struct CentralReadTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    func heartctl(_ arguments: [String], in dir: String) async throws -> (status: Int32, output: String) {
        try await runHeartctl(arguments, in: dir)
    }

    @Test func seriesBeatsAndFiltersMatchTheStores() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url), b = try SyncFixture(url: db.url)
        defer { a.remove(); b.remove() }
        try a.store.fill(series: 3, beats: 40)
        var other = GatewayStore.strap
        other.localIdentifier = "A0:9E:1A:65:43:21"
        other.metadata[MetadataKey.serialNumber] = "99999999"
        try b.store.fill(series: 2, beats: 30, device: other)
        try await a.runner().run(once: true)
        try await b.runner().run(once: true)
        let common = ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
        let range = ["--from", "2026-01-01", "--to", "2027-01-01"]

        let all = try await heartctl(common + ["series", "--json"] + range, in: a.dir)
        #expect(all.status == 0)
        #expect(all.output.components(separatedBy: "\"uuid\"").count - 1 == 10, "5 heartbeat + 5 heart-rate series")
        let one = try await heartctl(common + ["--gateway", b.gateway, "series", "--json", "--type", "heartbeat"] + range, in: a.dir)
        #expect(one.output.components(separatedBy: "\"uuid\"").count - 1 == 2)
        let device = try await heartctl(common + ["series", "--json", "--device", "A0:9E:1A:65:43:21"] + range, in: a.dir)
        #expect(device.output.components(separatedBy: "\"uuid\"").count - 1 == 4)

        // beats of one series: exactly what the gateway's own store answers with --db.
        let uuid = try #require(a.store.database.samples(type: Sample.heartbeatSeriesIdentifier).first).uuid
        let central = try await heartctl(common + ["beats", uuid.uuidString, "--format", "csv"], in: a.dir)
        let local = try await heartctl(["--db", a.store.path, "beats", uuid.uuidString, "--format", "csv"], in: a.dir)
        #expect(central.status == 0 && local.status == 0)
        #expect(central.output == local.output && central.output.split(separator: "\n").count >= 40)
        let missing = try await heartctl(common + ["beats", UUID().uuidString], in: a.dir)
        #expect(missing.status == 4, "not found")
    }

    /// `sessions` over every gateway, as `--db` lists them (statistics stored at the stop included), with `--gateway`,
    /// `--meta` and `--active`.
    @Test func sessionsOfEveryGatewayAsTheStoresListThem() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url), b = try SyncFixture(url: db.url)
        defer { a.remove(); b.remove() }
        let t0 = Date(timeIntervalSince1970: 1_790_000_000)
        let round = try a.store.database.startSession(Session(label: "round 1", start: t0, metadata: ["subject": "S01"]))
        try a.store.fill(series: 2, beats: 60, start: t0.addingTimeInterval(1), metadata: [MetadataKey.session: round.uuid.uuidString])
        try a.store.database.stopSession(uuid: round.uuid, end: t0.addingTimeInterval(600))
        try b.store.database.startSession(Session(label: "round 2", start: t0.addingTimeInterval(60), metadata: ["subject": "S02"]))
        try await a.runner().run(once: true)
        try await b.runner().run(once: true)
        let common = ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
        func labels(_ arguments: [String]) async throws -> [String] {
            let run = try await heartctl(common + arguments + ["--json"], in: a.dir)
            #expect(run.status == 0)
            let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
            return (object?["sessions"] as? [[String: Any]] ?? []).compactMap { $0["label"] as? String }
        }
        #expect(try await labels(["sessions"]) == ["round 1", "round 2"])
        #expect(try await labels(["--gateway", b.gateway, "sessions"]) == ["round 2"])
        #expect(try await labels(["sessions", "--meta", "subject=S02", "--meta", "subject=S03"]) == ["round 2"])
        #expect(try await labels(["sessions", "--active"]) == ["round 2"])

        // The same table as the gateway's own store gives, its statistics included.
        let central = try await heartctl(common + ["sessions", "--meta", "subject=S01"], in: a.dir)
        let local = try await heartctl(["--db", a.store.path, "sessions"], in: a.dir)
        #expect(central.status == 0 && local.status == 0)
        #expect(central.output == local.output)
        #expect(central.output.contains("round 1") && central.output.contains("120"), "the stopped session's 120 beats")
    }

    /// `stats` and `hrv` answered where the data is (`CentralQueries`, typed as `--db` hands its answers over) print
    /// the very table and text the gateway's own store prints (`stats --json` differs by `--db`'s count of open series).
    @Test func statsAndHRVPrintAsTheStoreDoes() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url)
        defer { a.remove() }
        try a.store.fill(series: 3, beats: 120)
        try await a.runner().run(once: true)
        let common = ["--central", db.url, "--central-tls", "disable", "--password-file", a.settings.passwordFile]
        let range = ["--from", "2026-01-01", "--to", "2027-01-01"]
        for command in [["stats", "--interval", "1d"], ["stats", "--by-device"], ["hrv"], ["hrv", "--json"]] {
            let central = try await heartctl(common + command + range, in: a.dir)
            let local = try await heartctl(["--db", a.store.path] + command + range, in: a.dir)
            #expect(central.status == 0 && local.status == 0, "\(command)")
            #expect(central.output == local.output, "\(command)")
            #expect(!central.output.isEmpty)
        }
    }
}
