import Foundation
import HealthModel
import HeartStore
import TestBus
import Testing
@testable import Sync

/// Sessions: delivered with their stop, deletions and the sync-version rule, and the documented "all beats of one
/// session" query answers what the gateway recorded in it.
@Suite(.serialized) struct SyncSessionTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    /// The first ```sql block after `marker` in docs/CENTRAL.md.
    static func documentedQuery(after marker: String) throws -> String {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/CENTRAL.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let from = try #require(text.range(of: marker)).upperBound
        let block = try #require(text.range(of: "```sql\n", range: from..<text.endIndex)).upperBound
        let end = try #require(text.range(of: "```", range: block..<text.endIndex)).lowerBound
        return String(text[block..<end])
    }

    @Test func sessionsAreDeliveredWithTheirBeats() async throws {
        let db = try server.createDatabase()
        let f = try SyncFixture(url: db.url)
        defer { f.remove() }
        let t0 = Date(timeIntervalSince1970: 1_790_000_000)
        let session = try f.store.database.startSession(Session(label: "round 1", start: t0, devices: [GatewayStore.strap.localIdentifier!]))
        try f.store.fill(series: 3, beats: 60, start: t0.addingTimeInterval(1), metadata: [MetadataKey.session: session.uuid.uuidString])
        try f.store.fill(series: 2, beats: 50, start: t0.addingTimeInterval(3600))  // after the session: not in it
        let doomed = try f.store.database.startSession(Session(label: "mistake", start: t0.addingTimeInterval(100)))
        func versioned(_ v: Int) -> Metadata { [MetadataKey.syncIdentifier: "class-7", MetadataKey.syncVersion: "\(v)"] }
        try f.store.database.startSession(Session(label: "v1", start: t0.addingTimeInterval(200), metadata: versioned(1)))
        try await f.runner().run(once: true)
        let active = "SELECT count(*) FROM sessions WHERE end_time IS NULL"
        #expect(try server.integer(active, database: db.name) == 3, "started sessions arrive while active")

        try f.store.database.stopSession(uuid: session.uuid, end: t0.addingTimeInterval(1800))
        try f.store.database.deleteSession(uuid: doomed.uuid)
        try f.store.database.startSession(Session(label: "v2", start: t0.addingTimeInterval(300), metadata: versioned(2)))
        try await f.runner().run(once: true)
        try f.store.expectDelivered(to: server, database: db.name, gateway: f.gateway)
        #expect(try server.integer("SELECT count(*) FROM sessions", database: db.name) == 2, "deleted and replaced ones are gone")
        #expect(try server.admin("SELECT label FROM sessions WHERE sync_identifier = 'class-7'", database: db.name) == "v2")
        #expect(try server.integer("""
            SELECT count(*) FROM sessions WHERE uuid = '\(session.uuid)' AND end_time = to_timestamp(\(Int(t0.timeIntervalSince1970) + 1800))
              AND statistics IS NOT NULL AND devices = ARRAY['\(GatewayStore.strap.localIdentifier!)']
            """, database: db.name) == 1, "the stop replaced the start")
        #expect(try server.integer("SELECT count(*) FROM tombstones WHERE type = '\(Session.typeIdentifier)'", database: db.name) == 2)

        let query = try Self.documentedQuery(after: "All beats of one session")
            .replacingOccurrences(of: "6f9619ff-8b86-d011-b42d-00c04fc964ff", with: session.uuid.uuidString.lowercased())
        let rows = try server.admin(query, database: db.name).split(separator: "\n")
        #expect(rows.count == 3 * 60, "the documented query returns the session's beats, and only those")
    }
}
