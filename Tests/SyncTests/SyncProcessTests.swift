import Foundation
import TestBus
import Testing
@testable import Sync

/// The real `heartd-sync` process: kill -9 at random moments (between a commit and its bookkeeping among
/// them), two processes on one store or one gateway, its exit statuses, and the old `heartd sync` pointing at it.
@Suite(.serialized) struct SyncProcessTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    /// A heartd.toml for the fixture's store and settings.
    func configFile(_ f: SyncFixture, stateFile: String? = nil) throws -> String {
        let path = f.dir + "/heartd-\(UUID().uuidString.prefix(4)).toml"
        try """
        [store]
        path = "\(f.store.path)"

        [sync]
        url = "\(f.settings.url)"
        tls = "disable"
        password_file = "\(f.settings.passwordFile)"
        gateway = "\(f.gateway)"
        interval = 0.2
        batch_size = \(f.settings.batchSize)
        timeout = 5
        retry_max = 1
        state_file = "\(stateFile ?? f.settings.stateFile)"
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func start(_ config: String, once: Bool = false, log: String, program: [String] = ["heartd-sync"]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try BuiltProducts.path(program[0]))
        process.arguments = Array(program.dropFirst()) + ["--config", config, "--log-target", "stderr"] + (once ? ["--once"] : [])
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        handle.seekToEndOfFile()
        process.standardError = handle
        process.standardOutput = handle
        try process.run()
        return process
    }

    @Test func killedAtRandomMomentsDeliversEverythingOnce() async throws {
        let db = try server.createDatabase()
        var f = try SyncFixture(url: db.url)
        defer { f.remove() }
        f.settings.batchSize = 3
        try f.store.fill(series: 80)
        let config = try configFile(f)
        var rng = SystemRandomNumberGenerator()
        var kills = 0
        for round in 0..<12 {
            let process = try start(config, log: f.dir + "/sync.log")
            // SIGKILL at a random point of its work: start-up, a batch in flight, between rounds.
            try await Task.sleep(nanoseconds: UInt64.random(in: 150_000_000...700_000_000, using: &rng))
            kill(process.processIdentifier, SIGKILL)
            await waitForExit(process)
            kills += 1
            // New changes keep arriving meanwhile, deletions among them.
            if round % 4 == 3 {
                try f.store.fill(series: 2, start: Date(timeIntervalSince1970: 1_790_500_000 + Double(round) * 1000))
                try f.store.database.delete(uuid: try #require(f.store.database.samples().first).uuid)
            }
        }
        let finish = try start(config, once: true, log: f.dir + "/sync.log")
        await waitForExit(finish, seconds: 60)
        #expect(finish.terminationStatus == 0, "\((try? String(contentsOfFile: f.dir + "/sync.log", encoding: .utf8)) ?? "")")
        #expect(kills == 12)
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
    }

    @Test func aSecondSyncProcessIsRefused() async throws {
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try f.store.fill(series: 3)
        let first = try start(try configFile(f), log: f.dir + "/first.log")
        defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
        #expect(await eventually { f.state()?.deliveredAnchor == (try f.store.database.currentAnchor()) })
        // Same store, same state directory: the local lock refuses at once.
        let second = try start(try configFile(f), once: true, log: f.dir + "/second.log")
        await waitForExit(second)
        #expect(second.terminationStatus == 3)
        // Another state directory but the same gateway: PostgreSQL's advisory lock refuses.
        let third = try start(try configFile(f, stateFile: f.dir + "/other/state.json"), once: true, log: f.dir + "/third.log")
        await waitForExit(third)
        #expect(third.terminationStatus == 3)
        let log = try String(contentsOfFile: f.dir + "/third.log", encoding: .utf8)
        #expect(log.contains("alreadyRunning"))
        first.terminate()
        #expect(await waitForExit(first))
        #expect(first.terminationReason == .exit && first.terminationStatus == 0, "SIGTERM stops it cleanly")
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
    }

    /// A cron line or unit from before the split: `heartd sync` names its successor, exits 2 and delivers nothing.
    @Test func theOldSyncCommandPointsAtHeartdSync() async throws {
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try f.store.fill(series: 2)
        let config = try configFile(f)
        let old = try start(config, once: true, log: f.dir + "/old.log", program: ["heartd", "sync"])
        #expect(await waitForExit(old))
        #expect(old.terminationStatus == 2)
        let log = try String(contentsOfFile: f.dir + "/old.log", encoding: .utf8)
        #expect(log.contains("heartd sync moved to heartd-sync: run `heartd-sync --config \(config) --log-target stderr --once`"),
                "\(log)")
        #expect(f.state() == nil, "no sync ran")
        // The command it names does the work.
        let new = try start(config, once: true, log: f.dir + "/new.log")
        #expect(await waitForExit(new, seconds: 60))
        #expect(new.terminationStatus == 0, "\((try? String(contentsOfFile: f.dir + "/new.log", encoding: .utf8)) ?? "")")
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
    }

    /// Without `sync.url` heartd-sync refuses to start as `heartd sync` did: a usage error (64) saying what to add.
    @Test func withoutAURLItRefusesToStart() async throws {
        let f = try SyncFixture(url: "")
        defer { f.remove() }
        let config = f.dir + "/empty.toml"
        try "[store]\npath = \"\(f.store.path)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let process = try start(config, once: true, log: f.dir + "/nourl.log")
        #expect(await waitForExit(process))
        #expect(process.terminationStatus == 64)
        #expect(try String(contentsOfFile: f.dir + "/nourl.log", encoding: .utf8).contains("sync.url is not set"))
    }
}
