import Foundation
import HealthModel
import HeartStore
import TestBus
import Testing
@testable import Sync

/// People: delivered once per change (added, changed, a strap assigned and taken over, removed), the later save
/// winning, and removed centrally by their tombstone.
@Suite(.serialized) struct SyncPeopleTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    @Test func peopleAndTheirStrapsAreDeliveredOncePerChange() async throws {
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        let store = f.store.database
        let strap = GatewayStore.strap.localIdentifier!
        let ana = try store.savePerson(Person(name: "Ana O'Neil", heartRateMaximum: 188, weightKg: 61.5))
        let bo = try store.savePerson(Person(name: "Bo", age: 40))
        try store.assign(strap: strap, to: ana.uuid)
        try await f.runner().run(once: true)
        #expect(try server.integer("SELECT count(*) FROM people", database: db.name) == 2)
        #expect(try server.admin("SELECT name || '|' || heart_rate_maximum || '|' || weight_kg || '|' || strap FROM people WHERE uuid = '\(ana.uuid)'",
                                 database: db.name) == "Ana O'Neil|188|61.5|\(strap)")
        #expect(try server.integer("SELECT age FROM people WHERE uuid = '\(bo.uuid)' AND heart_rate_maximum IS NULL AND strap IS NULL",
                                   database: db.name) == 40)

        try server.admin("""
            CREATE TABLE people_log (uuid uuid NOT NULL);
            CREATE FUNCTION log_person() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN INSERT INTO people_log VALUES (NEW.uuid); RETURN NEW; END $$;
            CREATE TRIGGER log_person AFTER INSERT OR UPDATE ON people FOR EACH ROW EXECUTE FUNCTION log_person();
            GRANT ALL ON people_log TO \(PostgresServer.user)
            """, database: db.name)

        // Bo takes the strap (Ana is released in the same write), Ana is renamed, then removed.
        try store.assign(strap: strap, to: bo.uuid)
        var renamed = try #require(try store.person(uuid: ana.uuid))
        renamed.name = "Ana"
        try store.savePerson(renamed)
        try await f.runner().run(once: true)
        #expect(try server.admin("SELECT name || '|' || coalesce(strap, '-') FROM people WHERE uuid = '\(ana.uuid)'", database: db.name) == "Ana|-")
        #expect(try server.admin("SELECT strap FROM people WHERE uuid = '\(bo.uuid)'", database: db.name) == strap)
        #expect(try server.integer("SELECT count(*) FROM people_log", database: db.name) == 2,
                "two people changed, each written once in its latest state")
        try store.removePerson(uuid: ana.uuid)
        try await f.runner().run(once: true)
        #expect(try server.integer("SELECT count(*) FROM people", database: db.name) == 1)
        #expect(try server.integer("SELECT count(*) FROM tombstones WHERE type = '\(Person.typeIdentifier)'", database: db.name) == 1)
        // Nothing is sent twice: a run with no change delivers nothing, and the delivered anchor is the store's.
        let anchor = try store.currentAnchor()
        try await f.runner().run(once: true)
        #expect(try server.integer("SELECT delivered_anchor FROM gateways", database: db.name) == Int(anchor))
        #expect(try server.integer("SELECT count(*) FROM people_log", database: db.name) == 2, "nothing written twice")
    }
}
