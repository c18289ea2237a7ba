import Foundation
import HealthModel
import Logging
import TestBus
import Testing
@testable import Sync

/// Network and server faults against a real PostgreSQL: after each, every sample is there once, deletions
/// are applied and the delivered anchor is the store's.
@Suite(.serialized) struct SyncFaultTests {
    /// Runs the sync loop in the background until `body` returns, then cancels it.
    func whileSyncing(_ f: SyncFixture, _ body: () async throws -> Void) async throws {
        let runner = try f.runner()
        let task = Task { try await runner.run(once: false) }
        defer { task.cancel() }
        try await body()
        task.cancel()
        _ = await task.result
    }

    func delivered(_ server: PostgresServer, _ db: String, _ f: SyncFixture) -> Int {
        (try? server.integer("SELECT delivered_anchor FROM gateways WHERE name = '\(f.gateway)'", database: db)) ?? 0
    }

    @Test func serverDownAtStartIsRetriedUntilItComes() async throws {
        let server = try PostgresServer(start: true)
        defer { server.remove() }
        let db = try server.createDatabase()
        server.stop()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try f.store.fill(series: 12)
        let anchor = Int(try f.store.database.currentAnchor())
        try await whileSyncing(f) {
            #expect(await eventually { f.state()?.lastError?.code == .connection }, "the failure is in the state file")
            try server.start()
            #expect(await eventually { delivered(server, db.name, f) == anchor })
        }
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
    }

    @Test func connectionKilledMidBatchLosesAndDuplicatesNothing() async throws {
        let server = try PostgresServer.shared.get()
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try f.store.fill(series: 60)
        try f.store.database.delete(uuid: try #require(f.store.database.samples().last).uuid)
        let anchor = Int(try f.store.database.currentAnchor())
        try await whileSyncing(f) {
            #expect(await eventually { delivered(server, db.name, f) > 0 })
            for _ in 0..<4 {
                try server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(db.name)'")
                // The next termination at a random point of the delivery.
                try await Task.sleep(nanoseconds: UInt64.random(in: 20_000_000...120_000_000))
            }
            #expect(await eventually { delivered(server, db.name, f) == anchor })
        }
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
    }

    @Test(arguments: ["fast", "immediate"])
    func serverRestartMidSync(mode: String) async throws {
        let server = try PostgresServer(start: true)
        defer { server.remove() }
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try f.store.fill(series: 60)
        let anchor = Int(try f.store.database.currentAnchor())
        try await whileSyncing(f) {
            #expect(await eventually { delivered(server, db.name, f) > 0 })
            server.stop(mode: mode)  // "immediate" is a server crash: recovery at the next start
            try server.start()
            #expect(await eventually { delivered(server, db.name, f) == anchor })
        }
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
    }

    /// The commit happened, the process died before its bookkeeping (the state file still says anchor 0, the
    /// connection was never closed cleanly): the next run starts from PostgreSQL's anchor and sends nothing twice.
    @Test func crashBetweenCommitAndBookkeepingSendsNothingTwice() async throws {
        let server = try PostgresServer.shared.get()
        let db = try server.createDatabase()
        var f = try SyncFixture(url: db.url)
        defer { f.remove() }
        f.settings.batchSize = 5
        try f.store.fill(series: 6)
        var stale = SyncState(gateway: f.gateway, central: db.url)
        stale.deliveredAnchor = 0
        try stale.write(to: f.settings.stateFile)
        var logger = Logger(label: "t")
        logger.logLevel = .critical
        let writer = try await CentralWriter.open(connector: f.connector(), gateway: GatewayIdentity(name: f.gateway, version: "test"),
                                                  logger: logger)
        let page = try f.store.database.replicaChanges(since: 0, limit: 5)
        let report = try await writer.deliver(page, from: 0)
        #expect(report.inserted == 5)
        // "Crash": the session dies with the server's backend, the state file is left as it was.
        try server.admin("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(db.name)'")
        await writer.close()
        #expect(f.state()?.deliveredAnchor == 0)
        try await f.runner().run(once: true)
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
        #expect(f.state()?.deliveredAnchor == (try f.store.database.currentAnchor()))
    }

    /// A fresh database reached through a `StallProxy`, and a fixture syncing to it with a 1 s timeout.
    func behindProxy(_ server: PostgresServer) throws -> (db: (name: String, url: String), proxy: StallProxy, f: SyncFixture) {
        let db = try server.createDatabase()
        let proxy = try StallProxy(upstreamPort: server.port)
        var f = try SyncFixture(url: db.url.replacingOccurrences(of: ":\(server.port)/", with: ":\(proxy.port)/"))
        f.settings.timeoutSeconds = 1
        return (db, proxy, f)
    }

    /// Mid-batch: the proxy stops forwarding while batches flow. Each batch and each reconnect must end in a
    /// `timeout` (not a hang), be retried, and once the proxy forwards again everything arrives once.
    @Test(.timeLimit(.minutes(2)))
    func stalledNetworkTimesOutAndRecovers() async throws {
        let server = try PostgresServer.shared.get()
        let (db, proxy, f) = try behindProxy(server)
        defer { proxy.stop(); f.remove() }
        func versioned(_ v: Int) -> Metadata { [MetadataKey.syncIdentifier: "stall-1", MetadataKey.syncVersion: "\(v)"] }
        try f.store.fill(series: 1, beats: 30, metadata: versioned(1))
        try f.store.fill(series: 80, start: Date(timeIntervalSince1970: 1_790_010_000))
        try await whileSyncing(f) {
            #expect(await eventually { delivered(server, db.name, f) > 0 })
            proxy.stall()
            let stalledAt = Date()
            #expect(await eventually(timeout: 10) { f.state()?.lastError?.code == .timeout }, "a timeout, not a hang")
            #expect(Date().timeIntervalSince(stalledAt) < 8)
            let firstTimeout = try #require(f.state()?.lastError?.at)
            // Still stalled: the reconnects time out too (the login never completes) and are retried.
            #expect(await eventually(timeout: 10) {
                guard let error = f.state()?.lastError else { return false }
                return error.code == .timeout && error.at > firstTimeout && error.detail.contains("connecting")
            }, "a stalled connect times out as well")
            // Changes made meanwhile: a deletion and a newer version of a synced sample.
            try f.store.database.delete(uuid: try #require(f.store.database.samples().last).uuid)
            try f.store.fill(series: 1, beats: 40, start: Date(timeIntervalSince1970: 1_790_900_000), metadata: versioned(2))
            let anchor = Int(try f.store.database.currentAnchor())
            let connections = proxy.accepted
            proxy.resume()
            #expect(await eventually(timeout: 30) { delivered(server, db.name, f) == anchor })
            #expect(proxy.accepted > connections, "delivered over a new connection")
        }
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
        #expect(try server.integer("SELECT sync_version FROM samples WHERE sync_identifier = 'stall-1'", database: db.name) == 2)
        #expect(try server.integer("SELECT count(*) FROM tombstones", database: db.name) >= 2)
    }

    /// At connect: a server reachable over TCP whose answers never come. `--once` must fail with `timeout` in
    /// about `sync.timeout`, and succeed once the network is back.
    @Test(.timeLimit(.minutes(1)))
    func stalledConnectTimesOut() async throws {
        let server = try PostgresServer.shared.get()
        let (db, proxy, f) = try behindProxy(server)
        defer { proxy.stop(); f.remove() }
        try f.store.fill(series: 5)
        proxy.stall()
        let started = Date()
        let error = await #expect(throws: SyncError.self) { try await f.runner().run(once: true) }
        #expect(error?.code == .timeout)
        #expect(error?.detail.contains("connecting") == true)
        #expect(Date().timeIntervalSince(started) < 5)
        proxy.resume()
        try await f.runner().run(once: true)
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
    }
}
