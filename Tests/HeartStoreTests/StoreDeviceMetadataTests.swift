import Foundation
import GRDB
import HealthModel
import Testing
@testable import HeartStore

/// Migration v2: a sample's copy of its device's metadata (serial number, sensor location) is kept once, on the
/// device, and merged back on every read; v1 stores migrate, or are read read-only as they are, and every read
/// returns exactly what was saved.
@Suite struct StoreDeviceMetadataTests {
    /// Samples as ingest makes them: the device's metadata copied into each sample's, plus the sample's own.
    static func ingestLike(_ k: Int, device: DeviceInfo = Fixtures.strap) -> [Sample] {
        let own: Metadata = device.metadata.merging([MetadataKey.finishReason: "max-beats"]) { a, _ in a }
        let start = Fixtures.start.addingTimeInterval(Double(k) * 1000)
        return [Fixtures.heartbeatSample(start: start, count: 300, seed: UInt64(k), device: device, metadata: own),
                Fixtures.heartRateSample(start: start, count: 200, seed: UInt64(k), device: device, metadata: own),
                // Not every device key in the sample: stored whole.
                Fixtures.heartRateSample(start: start.addingTimeInterval(500), count: 10, seed: 9, device: device,
                                         metadata: [MetadataKey.serialNumber: "12345678"])]
    }

    /// Everything the read paths return for `samples`.
    struct Reads: Equatable {
        var samples: [Sample?]
        var summaries: [SampleSummary]
        var changes: [SampleSummary]
        var heartbeatSeries: [HeartbeatSeriesSample]
    }

    static func readBack(_ db: HeartDatabase, _ samples: [Sample]) throws -> Reads {
        Reads(samples: try samples.map { try db.sample(uuid: $0.uuid) },
              summaries: try db.samples().sorted { $0.anchor < $1.anchor },
              changes: try db.changes(since: 0, limit: 10_000).added,
              heartbeatSeries: try db.heartbeatSeries(from: .distantPast, to: .distantFuture).sorted { $0.uuid.uuidString < $1.uuid.uuidString })
    }

    @Test("the device's keys leave the row and come back on every read path")
    func deviceKeysAreStoredOnceAndMergedBack() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let samples = Self.ingestLike(0)
        try db.save(samples)
        for sample in samples { #expect(try db.sample(uuid: sample.uuid) == sample) }
        #expect(try db.samples().map(\.metadata) == samples.sorted { $0.start < $1.start }.map(\.metadata))
        let stored = try db.read { db in
            try Row.fetchAll(db, sql: "SELECT metadata, inheritsDeviceMetadata FROM samples ORDER BY anchor")
                .map { ($0[0] as String?, $0[1] as Int) }
        }
        #expect(stored.map(\.1) == [1, 1, 0])
        #expect(stored[0].0 == #"{"HeartdFinishReason":"max-beats"}"#)

        // The device changes later: the samples keep the device and metadata they were saved with.
        var changed = Fixtures.strap
        changed.firmwareVersion = "6.0.0"
        changed.metadata = [MetadataKey.serialNumber: "87654321"]
        try db.upsertDevice(changed)
        let after = Self.ingestLike(1, device: changed)
        try db.save(after)
        for sample in samples + after { #expect(try db.sample(uuid: sample.uuid) == sample) }
    }

    @Test("a v1 store reads the same read-only, migrates, and reads the same after")
    func oldStoresMigrateWithExactReadBack() throws {
        let dir = try TempDirectory()
        let samples = Self.ingestLike(0) + Self.ingestLike(1)
        try Self.makeVersion1Store(at: dir.databasePath, holding: samples)

        let readOnly = try HeartDatabase.openReadOnly(path: dir.databasePath)
        let before = try Self.readBack(readOnly, samples)
        #expect(before.samples == samples.map { $0 })
        #expect(before.summaries.map(\.metadata) == samples.map(\.metadata))
        try readOnly.close()

        let migrated = try HeartDatabase(path: dir.databasePath)
        #expect(try Self.readBack(migrated, samples) == before)
        let more = Self.ingestLike(2)
        try migrated.save(more)
        for sample in samples + more { #expect(try migrated.sample(uuid: sample.uuid) == sample) }
        #expect(try migrated.integrityCheck() == "ok")
    }

    /// A store as version 1 wrote it: saved by this version, then every row given its whole metadata back,
    /// the v2 column dropped and the v2 migration unrecorded — the v1 schema exactly.
    static func makeVersion1Store(at path: String, holding samples: [Sample]) throws {
        let v1Columns: [String]
        do {
            let reference = try DatabaseQueue()
            try Schema.migrator.migrate(reference, upTo: "v1-initial")
            v1Columns = try reference.read { db in try db.columns(in: "samples").map(\.name) }
        }
        let db = try HeartDatabase(path: path)
        try db.save(samples)
        try db.close()
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            for sample in samples {
                try db.execute(sql: "UPDATE samples SET metadata = ? WHERE uuid = ?",
                               arguments: [StoreCoding.json(sample.metadata), StoreCoding.uuidBlob(sample.uuid)])
            }
            try db.execute(sql: "ALTER TABLE samples DROP COLUMN inheritsDeviceMetadata")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v2-device-metadata'")
            #expect(try db.columns(in: "samples").map(\.name) == v1Columns)
        }
        try queue.close()
    }
}
