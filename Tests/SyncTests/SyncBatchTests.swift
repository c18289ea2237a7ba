import Foundation
import HealthModel
import HeartStore
import TestBus
import Testing
@testable import Sync

/// Row-bounded transactions: a catch-up of long series is cut into transactions of at most `batch_rows` expanded
/// rows (the next one prepared while the server writes the current one), and a crash between two of them still
/// delivers each sample exactly once.
@Suite(.serialized) struct SyncBatchTests {
    @Test func aPageIsCutIntoRowBoundedPagesInAnchorOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rows-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try GatewayStore(path: dir + "/store.sqlite")
        try store.fill(series: 6, beats: 200)  // 6 × (200 beats + 100 heart-rate points)
        try store.database.startSession(Session(label: "a", start: Date(timeIntervalSince1970: 1_790_000_100)))
        try store.database.delete(uuid: try #require(store.database.samples().first).uuid)
        try store.fill(series: 1, beats: 700, start: Date(timeIntervalSince1970: 1_790_100_000))  // larger than the bound
        let page = try store.database.replicaChanges(since: 0, limit: 1000)

        let pages = page.split(maxRows: 450)
        var previous: Int64 = 0
        for part in pages {
            #expect(part.expandedRows <= 450 || part.added.count + part.deleted.count + part.sessions.count == 1,
                    "within the bound, or one change alone")
            let anchors = part.added.map(\.anchor) + part.deleted.map(\.anchor) + part.sessions.compactMap(\.anchor)
            #expect(anchors.allSatisfy { $0 > previous && $0 <= part.anchor }, "each page ends at its last change")
            previous = part.anchor
        }
        #expect(previous == page.anchor)
        #expect(pages.flatMap { $0.added.map(\.sample.uuid) } == page.added.map(\.sample.uuid))
        #expect(pages.flatMap(\.deleted) == page.deleted)
        #expect(pages.flatMap { $0.sessions.map(\.uuid) } == page.sessions.map(\.uuid))
        #expect(pages.count >= 7 && pages.count < page.added.count, "cut by rows, not one page per change")
        #expect(page.split(maxRows: 100_000).count == 1)
    }

    /// 40 series of 600 beats (36,000 rows) with `batch_rows` 2000: many transactions, each within the bound; the
    /// connection dies inside one of them half-way (a trigger terminates its own backend once), and the next run
    /// delivers the rest — every sample once.
    @Test func aCatchUpInRowBoundedTransactionsKilledHalfWayDeliversEverySampleOnce() async throws {
        let server = try PostgresServer.shared.get()
        let db = try server.createDatabase()
        var f = try SyncFixture(url: db.url)
        defer { f.remove() }
        f.settings.batchRows = 2000
        try await f.runner().run(once: true)  // the schema and the gateway, nothing to deliver yet
        try f.store.fill(series: 40, beats: 600)
        let anchor = try f.store.database.currentAnchor()
        try server.admin("""
            CREATE TABLE anchor_log (anchor bigint NOT NULL);
            CREATE SEQUENCE crash_once;
            CREATE FUNCTION log_anchor() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF NEW.delivered_anchor > \(anchor / 2) AND nextval('crash_once') = 1 THEN
                    PERFORM pg_terminate_backend(pg_backend_pid());
                END IF;
                INSERT INTO anchor_log VALUES (NEW.delivered_anchor);
                RETURN NEW;
            END $$;
            CREATE TRIGGER log_anchor BEFORE UPDATE OF delivered_anchor ON gateways FOR EACH ROW EXECUTE FUNCTION log_anchor();
            GRANT ALL ON anchor_log, crash_once TO \(PostgresServer.user)
            """, database: db.name)
        await #expect(throws: SyncError.self, "the connection dies in a transaction half-way") {
            try await f.runner().run(once: true)
        }
        let halfWay = try server.integer("SELECT delivered_anchor FROM gateways WHERE name = '\(f.gateway)'", database: db.name)
        #expect(halfWay > 0 && halfWay < Int(anchor))
        try await f.runner().run(once: true)
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)

        // Every committed transaction held at most batch_rows rows (its samples' beats or points).
        let sizes = try server.admin("""
            SELECT coalesce(sum(s.count), 0) FROM (SELECT anchor, lag(anchor, 1, 0::bigint) OVER (ORDER BY anchor) AS previous
                                                   FROM anchor_log) l
            LEFT JOIN samples s ON s.anchor > l.previous AND s.anchor <= l.anchor GROUP BY l.anchor ORDER BY l.anchor
            """, database: db.name).split(separator: "\n").compactMap { Int($0) }
        #expect(sizes.count >= 36_000 / 2000, "\(sizes.count) transactions")
        #expect(sizes.allSatisfy { $0 <= 2000 }, "\(sizes)")
        #expect(sizes.reduce(0, +) == 40 * 900)
    }
}
