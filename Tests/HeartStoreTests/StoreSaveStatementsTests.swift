import Foundation
import GRDB
import HealthModel
import Synchronization
import Testing
@testable import HeartStore

/// A save runs for every finished series (on a gateway about once a minute), cold: it goes through a few cached
/// statements, not the record API, which builds its SQL from the schema at each call and decodes the device row.
@Suite struct StoreSaveStatementsTests {
    /// The SQL the writer connection runs during `body`.
    static func statements(of db: HeartDatabase, during body: () throws -> Void) throws -> [String] {
        let log = Mutex<[String]>([])
        try db.write { $0.trace { event in log.withLock { $0.append("\(event)") } } }
        defer { _ = try? db.write { $0.trace(options: []) } }
        try body()
        return log.withLock { $0 }
    }

    static func normalized(_ sql: String) -> String {
        sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test("a known device described as stored: only its seen dates are written")
    func unchangedDeviceOnlyWidensItsDates() throws {
        let db = try HeartDatabase.inMemory()
        try db.save(StoreDeviceMetadataTests.ingestLike(0))
        let later = StoreDeviceMetadataTests.ingestLike(1)
        let run = try Self.statements(of: db) { try db.save(later) }.map(Self.normalized)

        let devices = run.filter { $0.contains("devices") }
        #expect(devices.count == 2)
        #expect(devices.first?.hasPrefix("SELECT id, name, manufacturer, model,") == true)
        #expect(devices.last == "UPDATE devices SET firstSeen = ?, lastSeen = ? WHERE id = ?")
        #expect(run.filter { $0.hasPrefix("INSERT INTO samples (uuid, type,") }.count == later.count)
        #expect(try db.devices().map(\.lastSeen) == [later.map(\.end).max()])
        for sample in later { #expect(try db.sample(uuid: sample.uuid) == sample) }
    }

    @Test("a new device is inserted without the record API, and a second save finds it")
    func newDeviceIsInsertedOnce() throws {
        let db = try HeartDatabase.inMemory()
        let samples = StoreDeviceMetadataTests.ingestLike(0)
        let run = try Self.statements(of: db) { try db.save(samples) }.map(Self.normalized)

        #expect(run.filter { $0.hasPrefix("INSERT INTO devices (name,") }.count == 1)
        #expect(!run.contains { $0.contains("\"devices\"") || $0.contains("\"samples\"") })
        let stored = try db.devices()
        #expect(stored.map(\.info) == [Fixtures.strap])
        #expect(stored.map(\.firstSeen) == [samples.map(\.start).min()])
        #expect(stored.map(\.lastSeen) == [samples.map(\.end).max()])
        try db.save(StoreDeviceMetadataTests.ingestLike(1))
        #expect(try db.devices().map(\.id) == stored.map(\.id))
    }

    @Test("a row whose metadata JSON has another form is still the same device: no snapshot, nothing lost")
    func metadataInAnotherFormIsTheSameDevice() throws {
        let db = try HeartDatabase.inMemory()
        let first = StoreDeviceMetadataTests.ingestLike(0)
        try db.save(first)
        // As another writer might have stored it: the same object, keys unsorted and spaced.
        let reordered = #"{ "\#(MetadataKey.bodySensorLocation)": "chest", "\#(MetadataKey.serialNumber)": "12345678" }"#
        try db.write { db in try db.execute(sql: "UPDATE devices SET metadata = ?", arguments: [reordered]) }
        let later = StoreDeviceMetadataTests.ingestLike(1)
        try db.save(later)
        let snapshots = try db.read { db in try String?.fetchAll(db, sql: "SELECT deviceSnapshot FROM samples") }
        #expect(snapshots == Array(repeating: nil, count: first.count + later.count))
        for sample in first + later { #expect(try db.sample(uuid: sample.uuid) == sample) }
        #expect(try db.devices().map(\.info) == [Fixtures.strap])
    }
}
