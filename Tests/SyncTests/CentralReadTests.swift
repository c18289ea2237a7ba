import Foundation
import HealthModel
import TestBus
import Testing
@testable import Sync

/// `heartctl --central`: the same answers as `--db`, over every gateway, with `--gateway` and `--device`.
@Suite(.serialized) struct CentralReadTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    /// Runs the built heartctl; its standard output.
    func heartctl(_ arguments: [String], in dir: String) async throws -> (status: Int32, output: String) {
        let out = dir + "/heartctl-\(UUID().uuidString.prefix(6)).out"
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProducts.path("heartctl"))
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        try process.run()
        #expect(await waitForExit(process))
        return (process.terminationStatus, try String(contentsOfFile: out, encoding: .utf8))
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
}
