import Foundation
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
}
