import Foundation
import GRDB
import HealthModel
import Testing
@testable import HeartStore

/// The hourly heart-rate roll-up (`heartRateRollup`: whole hours summed, the edges and the points crossing an hour
/// streamed) gives exactly the statistics of streaming every point (`forEachQuantityPoint`), whatever the range and
/// hour-aligned buckets, after saves, deletes and a sync identifier's replacement, and on a store it was backfilled in.
@Suite struct HeartRateRollupTests {
    /// An hour's start (reference-date seconds on the UTC hour grid).
    static let hour = Date(timeIntervalSinceReferenceDate: 785_001_600)

    static var other: DeviceInfo {
        var d = Fixtures.strap
        d.localIdentifier = "A0:9E:1A:65:43:21"
        d.metadata[MetadataKey.serialNumber] = "99999999"
        return d
    }

    /// Points on whole half seconds (exact in binary and in the store's ticks), so every sum is exact in any order.
    static func samples() -> [Sample] {
        var instants: [QuantityPoint] = []
        for i in 0..<40 {
            let t: Date = hour.addingTimeInterval(Double(i * 97) - 1800)
            let value = Double(70 + i % 9)
            instants.append(QuantityPoint(value: value, start: t, end: t))
        }
        instants.sort { $0.start < $1.start }
        return [
            // 2 h 10 min from 30 min before the hour, shifted half a second: one point crosses each hour's end.
            Fixtures.heartRateSample(start: hour.addingTimeInterval(-1800.5), count: 7800, seed: 3),
            Fixtures.heartRateSample(start: hour.addingTimeInterval(100.25), count: 3000, seed: 4, device: other),
            .quantity(QuantitySample(type: .heartRate, start: instants[0].start, end: instants[instants.count - 1].end,
                                     points: instants,
                                     aggregates: QuantityAggregates(points: instants, style: .discreteTemporallyWeighted),
                                     device: Fixtures.strap)),
        ]
    }

    /// (from, to, interval, anchor) relative to `hour`; nil interval: one bucket.
    static let reads: [(Double, Double, Double?, Double?)] = [
        (-7200, 10800, nil, nil), (-7200, 10800, 3600, nil), (-3600, 7200, 7200, -3600), (-1799.25, 6000.5, nil, nil),
        (-1799.25, 6000.5, 3600, -3600), (0, 3600, nil, nil), (-0.5, 3600.25, 3600, 0), (-86400, 86400, 86400, -86400),
        (1000, 2000, nil, nil), (-1800.5, 7200, 3600, 0), (-1800.5, 7200, 7200, 0),
    ]

    static func builder(_ read: (Double, Double, Double?, Double?)) throws -> QuantityStatisticsBuilder {
        let from = hour.addingTimeInterval(read.0), to = hour.addingTimeInterval(read.1)
        guard let interval = read.2 else { return try .single(style: .discreteTemporallyWeighted, from: from, to: to) }
        return try QuantityStatisticsBuilder(style: .discreteTemporallyWeighted, anchor: hour.addingTimeInterval(read.3 ?? 0),
                                             interval: interval, from: from, to: to)
    }

    static func streamed(_ db: HeartDatabase, _ read: (Double, Double, Double?, Double?), device: String?) throws -> QuantityStatisticsCollection {
        var b = try builder(read)
        try db.forEachQuantityPoint(type: .heartRate, from: b.from, to: b.to, device: device) { b.add($0) }
        return b.collection()
    }

    static func rolledUp(_ db: HeartDatabase, _ read: (Double, Double, Double?, Double?), device: String?) throws -> QuantityStatisticsCollection {
        var b = try builder(read)
        let answered = try db.heartRateRollup(from: b.from, to: b.to, device: device, totals: { start, totals in
            let k = Int((start.timeIntervalSince(b.anchor) / b.interval).rounded(.down))
            b.merge(totals, intoBucket: k)
        }, point: { b.add($0) })
        #expect(answered)
        return b.collection()
    }

    static func expectSame(_ db: HeartDatabase, _ stage: String) throws {
        var counted = 0
        for read in reads {
            for device in [nil, Fixtures.strap.localIdentifier, other.localIdentifier] {
                let s = try streamed(db, read, device: device), r = try rolledUp(db, read, device: device)
                #expect(s == r, "\(stage) \(read) \(device ?? "all"):\nstreamed \(s.buckets)\nrolled up \(r.buckets)")
                counted += s.buckets.reduce(0) { $0 + $1.count }
            }
        }
        #expect(counted > 1000, "\(stage): nothing counted")
    }

    @Test func rollupEqualsStreamingAcrossSavesDeletesAndReplacements() throws {
        let db = try HeartDatabase.inMemory()
        let samples = Self.samples()
        try db.save(samples)
        try Self.expectSame(db, "saved")
        // A sync identifier's newer version replaces (deletes) the stored one.
        let v1 = Fixtures.heartRateSample(start: Self.hour.addingTimeInterval(2000), count: 600, seed: 5,
                                          metadata: [MetadataKey.syncIdentifier: "s", MetadataKey.syncVersion: "1"])
        let v2 = Fixtures.heartRateSample(start: Self.hour.addingTimeInterval(2500.5), count: 900, seed: 6,
                                          metadata: [MetadataKey.syncIdentifier: "s", MetadataKey.syncVersion: "2"])
        try db.save([v1])
        try db.save([v2])
        try Self.expectSame(db, "replaced")
        #expect(try db.delete(uuid: samples[0].uuid))
        try Self.expectSame(db, "deleted")
        let rows = try db.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM heart_rate_hourly WHERE sample = ?",
                                                   arguments: [StoreCoding.uuidBlob(samples[0].uuid)]) }
        #expect(rows == 0)
    }

    @Test func migrationBackfillsAStoreSavedWithoutTheRollup() throws {
        let dir = try TempDirectory()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            try db.save(Self.samples())
        }
        // The store as version 4 left it: no roll-up table, the migration not applied.
        let queue = try DatabaseQueue(path: dir.databasePath)
        try queue.write { db in
            try db.execute(sql: "DROP TABLE heart_rate_hourly")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v5-heart-rate-hourly'")
        }
        try queue.close()
        let reopened = try HeartDatabase(path: dir.databasePath)
        try Self.expectSame(reopened, "backfilled")
    }

    @Test func anOlderStoreOpenedReadOnlyHasNoRollup() throws {
        let dir = try TempDirectory()
        do { _ = try HeartDatabase(path: dir.databasePath) }
        let queue = try DatabaseQueue(path: dir.databasePath)
        try queue.write { try $0.execute(sql: "DROP TABLE heart_rate_hourly") }
        try queue.close()
        let db = try HeartDatabase.openReadOnly(path: dir.databasePath)
        let answered = try db.heartRateRollup(from: Self.hour, to: Self.hour.addingTimeInterval(7200), totals: { _, _ in },
                                              point: { _ in })
        #expect(!answered)
    }
}
