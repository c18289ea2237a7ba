import Foundation
import TestBus
import HealthModel
import HeartStore
import Logging
import Testing
@testable import Sync

/// `heartd-sync`'s delivery against a real PostgreSQL: every sample once, deletions, the sync-version rule,
/// the schema guard, the login and the one-process-per-gateway rule.
@Suite(.serialized) struct SyncDeliveryTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    @Test func deliversEverySampleOnceAndAppliesDeletions() async throws {
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try f.store.fill(series: 10)
        try await f.runner().run(once: true)
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
        // RR: the interval before a beat, in ms; NULL after a gap.
        #expect(try server.integer("SELECT count(*) FROM beats WHERE preceded_by_gap AND rr_ms IS NOT NULL", database: db.name) == 0)
        #expect(try server.integer("SELECT count(*) FROM beats WHERE NOT preceded_by_gap AND (rr_ms < 780 OR rr_ms > 1080)",
                                   database: db.name) == 0)
        #expect(try server.integer("SELECT count(*) FROM devices WHERE address = 'A0:9E:1A:12:34:56' AND serial = '1A2B3C4D'",
                                   database: db.name) == 1)
        // Delete two samples, add more, run again: deletions applied, nothing twice.
        let victims = Array(try f.store.database.samples().prefix(2))
        for victim in victims { try f.store.database.delete(uuid: victim.uuid) }
        try f.store.fill(series: 3, start: Date(timeIntervalSince1970: 1_790_100_000))
        try await f.runner().run(once: true)
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
        #expect(try server.integer("SELECT count(*) FROM tombstones", database: db.name) == 2)
        let state = try #require(f.state())
        #expect(state.lastError == nil)
        #expect(state.lag() == 0)
    }

    @Test func syncVersionRuleHoldsAcrossGateways() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url), b = try SyncFixture(url: db.url), c = try SyncFixture(url: db.url)
        defer { a.remove(); b.remove(); c.remove() }
        func versioned(_ v: Int) -> Metadata { [MetadataKey.syncIdentifier: "night-42", MetadataKey.syncVersion: "\(v)"] }
        try a.store.fill(series: 1, beats: 50, metadata: versioned(2))
        try b.store.fill(series: 1, beats: 60, metadata: versioned(1))
        try c.store.fill(series: 1, beats: 70, metadata: versioned(3))
        try await a.runner().run(once: true)
        try await b.runner().run(once: true)
        let kept = "SELECT sync_version FROM samples WHERE sync_identifier = 'night-42'"
        #expect(try server.integer(kept, database: db.name) == 2, "a lower version does not replace a higher one")
        #expect(try server.integer("SELECT count(*) FROM beats", database: db.name) == 50, "the stale sample brought no beats")
        try await c.runner().run(once: true)
        #expect(try server.integer(kept, database: db.name) == 3, "a higher version replaces")
        // Its expanded rows were replaced with it: version 3's 70 beats, no beats of version 2.
        #expect(try server.integer("""
            SELECT count(*) FROM beats b JOIN samples s ON s.uuid = b.sample WHERE s.sync_identifier = 'night-42'
            """, database: db.name) == 70)
        #expect(try server.integer("SELECT count(*) FROM beats", database: db.name) == 70)
    }

    @Test func refusesASchemaFromANewerHeartd() async throws {
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try f.store.fill(series: 1)
        try await f.runner().run(once: true)
        try server.admin("UPDATE heartd_schema SET version = \(CentralSchema.version + 1)", database: db.name)
        try f.store.fill(series: 1, start: Date(timeIntervalSince1970: 1_790_200_000))
        let error = await #expect(throws: SyncError.self) { try await f.runner().run(once: true) }
        #expect(error?.code == .schemaTooNew)
        #expect(f.state()?.lastError?.code == .schemaTooNew)
        #expect(try server.integer("SELECT count(*) FROM samples", database: db.name) == 2, "nothing written")
    }

    @Test func wrongPasswordIsAnAuthenticationError() async throws {
        let db = try server.createDatabase()
        var f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try "not-the-password\n".write(toFile: f.settings.passwordFile, atomically: true, encoding: .utf8)
        f.settings.retryMaxSeconds = 1
        try f.store.fill(series: 1)
        let error = await #expect(throws: SyncError.self) { try await f.runner().run(once: true) }
        #expect(error?.code == .authentication)
        #expect(error.map { !$0.detail.contains("not-the-password") } == true, "the password is never in a message")
    }

    @Test func oneSyncProcessPerGatewayAndPerStore() async throws {
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        var logger = Logger(label: "t")
        logger.logLevel = .critical
        let identity = GatewayIdentity(name: f.gateway, version: "test")
        let first = try await CentralWriter.open(connector: f.connector(), gateway: identity, logger: logger)
        let error = await #expect(throws: SyncError.self) {
            _ = try await CentralWriter.open(connector: f.connector(), gateway: identity, logger: logger)
        }
        #expect(error?.code == .alreadyRunning)
        await first.close()
        // Closed (or crashed): the lock goes with the session.
        let again = try await CentralWriter.open(connector: f.connector(), gateway: identity, logger: logger)
        await again.close()
        let lock = try SyncLock(path: f.settings.stateFile + ".lock")
        #expect(throws: SyncError(.alreadyRunning, "another heartd-sync holds \(lock.path)")) {
            _ = try SyncLock(path: f.settings.stateFile + ".lock")
        }
    }

    @Test func refusesAStoreBehindTheCentralAnchor() async throws {
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        try f.store.fill(series: 2)
        try await f.runner().run(once: true)
        try server.admin("UPDATE gateways SET delivered_anchor = 1000000", database: db.name)
        let error = await #expect(throws: SyncError.self) { try await f.runner().run(once: true) }
        #expect(error?.code == .storeBehindCentral)
    }
}
