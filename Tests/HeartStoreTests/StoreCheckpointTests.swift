import Foundation
import HealthModel
import Testing
@testable import HeartStore

@Suite struct StoreCheckpointTests {
    @Test func checkpointsUpsertAndCloseWithTheirSave() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        guard case .heartbeatSeries(var open) = Fixtures.heartbeatSample(count: 500) else { return }
        try db.writeCheckpoints([.heartbeatSeries(open)])
        open.beats += Fixtures.beats(count: 1000, seed: 1).suffix(500).map { beat in
            Beat(offset: beat.offset + 1000, precededByGap: beat.precededByGap)
        }
        open.end = open.start.addingTimeInterval(open.beats.last?.offset ?? 0)
        let rate = Fixtures.heartRateSample(count: 20)
        try db.writeCheckpoints([.heartbeatSeries(open), rate])

        let stored = try db.checkpoints()
        #expect(stored.count == 2)
        #expect(stored.contains(.heartbeatSeries(open)))
        #expect(stored.contains(rate))

        try db.save([.heartbeatSeries(open)], closingCheckpoints: [open.uuid])
        #expect(try db.checkpoints() == [rate])
        try db.deleteCheckpoints([rate.uuid])
        #expect(try db.checkpoints().isEmpty)
    }

    @Test func recoveryFinishesEveryCheckpoint() throws {
        let dir = try TempDirectory()
        let t0 = Fixtures.start
        let beatsUUID = UUID(), rateUUID = UUID(), emptyUUID = UUID()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let beats = Fixtures.beats(count: 300, seed: 8)
            // The open series' end is stale (it was journaled before the last beats).
            try db.writeCheckpoints([
                .heartbeatSeries(HeartbeatSeriesSample(uuid: beatsUUID, start: t0, end: t0, beats: beats,
                                                       device: Fixtures.strap, metadata: ["k": "v"])),
                .quantity(QuantitySample(uuid: rateUUID, type: .heartRate, start: t0, end: t0,
                                         points: Fixtures.heartRatePoints(count: 60, seed: 3),
                                         aggregates: QuantityAggregates(), device: Fixtures.strap)),
                .heartbeatSeries(HeartbeatSeriesSample(uuid: emptyUUID, start: t0, end: t0, beats: [], device: nil)),
            ])
            // The process "crashes" here: nothing else is written.
        }
        let db = try HeartDatabase(path: dir.databasePath)
        let recovered = try db.recoverCheckpoints(finishedAt: t0.addingTimeInterval(7200))
        #expect(Set(recovered.map(\.uuid)) == [beatsUUID, rateUUID])
        #expect(try db.checkpoints().isEmpty)
        #expect(try db.sample(uuid: emptyUUID) == nil)

        guard case .heartbeatSeries(let series) = try db.sample(uuid: beatsUUID) else {
            Issue.record("the heartbeat series was not saved")
            return
        }
        #expect(series.beats == Fixtures.beats(count: 300, seed: 8))
        #expect(series.end == t0.addingTimeInterval(series.beats.last?.offset ?? -1))
        #expect(series.metadata == ["k": "v", MetadataKey.recovered: "true", MetadataKey.finishReason: "recovery"])
        #expect(series.device == Fixtures.strap)

        guard case .quantity(let rate) = try db.sample(uuid: rateUUID) else {
            Issue.record("the heart-rate series was not saved")
            return
        }
        let points = Fixtures.heartRatePoints(count: 60, seed: 3)
        #expect(rate.points == points)
        #expect(rate.aggregates == QuantityAggregates(points: points, style: .discreteTemporallyWeighted))
        #expect(rate.end == points.last?.end)
        #expect(rate.metadata[MetadataKey.recovered] == "true")
        #expect(try db.recoverCheckpoints().isEmpty)
    }
}
