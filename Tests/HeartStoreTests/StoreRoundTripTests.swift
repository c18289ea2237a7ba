import Foundation
import HealthModel
import Testing
@testable import HeartStore

@Suite struct StoreRoundTripTests {
    @Test func savedSamplesComeBackEqual() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let beats = Fixtures.heartbeatSample(metadata: [MetadataKey.finishReason: "max-beats"])
        let rate = Fixtures.heartRateSample(start: Fixtures.start.addingTimeInterval(5))
        let result = try db.save([beats, rate])
        #expect(result.saved == [beats.uuid, rate.uuid])
        #expect(result.skipped.isEmpty)

        #expect(try db.sample(uuid: beats.uuid) == beats)
        #expect(try db.sample(uuid: rate.uuid) == rate)
        if case .heartbeatSeries(let series) = beats {
            #expect(try db.beats(uuid: beats.uuid) == series.beats)
        }
        #expect(try db.beats(uuid: rate.uuid) == nil)
        #expect(try db.sample(uuid: UUID()) == nil)
        #expect(try db.beats(uuid: UUID()) == nil)
        #expect(try db.integrityCheck() == "ok")
    }

    @Test func summariesFilterByTypeDeviceAndRange() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        var other = Fixtures.strap
        other.localIdentifier = "11:22:33:44:55:66"
        other.name = "Wahoo TICKR"
        let t0 = Fixtures.start
        let a = Fixtures.heartbeatSample(start: t0, count: 100)                       // ~85 s
        let b = Fixtures.heartbeatSample(start: t0.addingTimeInterval(3600), count: 100, device: other)
        let c = Fixtures.heartRateSample(start: t0.addingTimeInterval(60), count: 100)
        try db.save([b, c, a])

        #expect(try db.samples().map(\.uuid) == [a.uuid, c.uuid, b.uuid])
        #expect(try db.samples(type: Sample.heartbeatSeriesIdentifier).map(\.uuid) == [a.uuid, b.uuid])
        #expect(try db.samples(device: other.localIdentifier).map(\.uuid) == [b.uuid])
        #expect(try db.samples(device: "00:00:00:00:00:00").isEmpty)
        // Overlap: a runs past t0 + 70 s, so it matches a range starting there.
        #expect(try db.samples(from: t0.addingTimeInterval(70), to: t0.addingTimeInterval(3600)).map(\.uuid) == [a.uuid, c.uuid])
        #expect(try db.samples(to: t0.addingTimeInterval(60)).map(\.uuid) == [a.uuid])
        #expect(try db.samples(limit: 2).map(\.uuid) == [a.uuid, c.uuid])
        #expect(try db.samples(limit: 2, newestFirst: true).map(\.uuid) == [b.uuid, c.uuid])

        let summary = try #require(try db.samples(device: other.localIdentifier).first)
        #expect(summary.deviceAddress == other.localIdentifier)
        #expect(summary.deviceName == "Wahoo TICKR")
        #expect(summary.device == other)
        #expect(summary.count == 100)
        let rate = try #require(try db.samples(type: QuantityType.heartRate.identifier).first)
        if case .quantity(let q) = c { #expect(rate.aggregates == q.aggregates) }
    }

    @Test func quantitiesEnumeratePointsInRangeAcrossSamples() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let t0 = Fixtures.start
        let first = Fixtures.heartRateSample(start: t0, count: 100, seed: 1)
        let second = Fixtures.heartRateSample(start: t0.addingTimeInterval(100), count: 100, seed: 2)
        try db.save([second, first])
        let points = try db.quantities(type: .heartRate, from: t0.addingTimeInterval(50), to: t0.addingTimeInterval(150))
        // Points [49,50) ... end at 50 and count as overlapping the start; starts < 150.
        #expect(points.first?.start == t0.addingTimeInterval(49))
        #expect(points.last?.start == t0.addingTimeInterval(149))
        #expect(points.count == 101)
        #expect(zip(points, points.dropFirst()).allSatisfy { $0.start < $1.start })
        #expect(try db.quantities(type: .activeEnergyBurned, from: t0, to: t0.addingTimeInterval(1000)).isEmpty)
    }

    @Test func heartbeatSeriesOfADayComeBackInOneRead() throws {
        let db = try HeartDatabase.inMemory()
        let t0 = Fixtures.start
        let samples = (0..<5).map { i in Fixtures.heartbeatSample(start: t0.addingTimeInterval(Double(i) * 900), seed: UInt64(i)) }
        try db.save(samples)
        let series = try db.heartbeatSeries(from: t0, to: t0.addingTimeInterval(86_400))
        #expect(series.map { Sample.heartbeatSeries($0) } == samples)
    }

    @Test func deviceInfoIsKeptPerSampleWhenTheDeviceChanges() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let before = Fixtures.heartbeatSample(count: 10)
        try db.save([before])
        var updated = Fixtures.strap
        updated.firmwareVersion = "5.1.0"
        let id = try db.upsertDevice(updated, seenAt: Fixtures.start.addingTimeInterval(10_000))
        let after = Fixtures.heartbeatSample(start: Fixtures.start.addingTimeInterval(20_000), count: 10, device: updated)
        try db.save([after])

        #expect(try db.sample(uuid: before.uuid)?.device == Fixtures.strap)
        #expect(try db.sample(uuid: after.uuid)?.device == updated)
        let devices = try db.devices()
        #expect(devices.count == 1)
        #expect(devices.first?.id == id)
        #expect(devices.first?.info == updated)
        #expect(devices.first?.firstSeen == Fixtures.start)
        #expect(devices.first?.lastSeen == after.end)
        #expect(try db.upsertDevice(updated) == id)
    }

    @Test func samplesWithoutDeviceOrAddressAreStored() throws {
        let db = try HeartDatabase.inMemory()
        let anonymous = DeviceInfo(name: "Simulator")
        let a = Fixtures.heartbeatSample(count: 5, device: nil)
        let b = Fixtures.heartbeatSample(count: 5, device: anonymous)
        let c = Fixtures.heartbeatSample(count: 5, device: anonymous)
        try db.save([a, b, c])
        #expect(try db.sample(uuid: a.uuid) == a)
        #expect(try db.sample(uuid: c.uuid) == c)
        #expect(try db.devices().count == 1)
    }

    @Test func reopenedFileKeepsEverything() throws {
        let dir = try TempDirectory()
        let sample = Fixtures.heartbeatSample()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            try db.save([sample])
            try db.writeCheckpoints([Fixtures.heartRateSample(count: 10)])
            try db.close()
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(try db.sample(uuid: sample.uuid) == sample)
        #expect(try db.checkpoints().count == 1)
        #expect(try db.currentAnchor() == 1)
        #expect(db.fileSize() > 2000)
    }

    @Test func invalidContentsAreSkippedNotFatal() throws {
        let db = try HeartDatabase.inMemory()
        let bad = Sample.heartbeatSeries(HeartbeatSeriesSample(
            start: Fixtures.start, end: Fixtures.start,
            beats: [Beat(offset: 2, precededByGap: true), Beat(offset: 1, precededByGap: false)], device: nil))
        let good = Fixtures.heartbeatSample(count: 3)
        let result = try db.save([bad, good])
        #expect(result.saved == [good.uuid])
        #expect(result.skipped.map(\.reason) == [.invalidContents])
    }
}
