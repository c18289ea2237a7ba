import Foundation
import HealthModel
import SeededRandom
import Testing

@Suite struct QuantitySeriesBuilderTests {
    @Test func insertAtSameStartReplaces() throws {
        var b = QuantitySeriesBuilder(type: .heartRate, start: t0, device: nil)
        try b.insert(60, start: at(0), end: at(1))
        try b.insert(70, start: at(1), end: at(2))
        try b.insert(65, start: at(0), end: at(1))
        #expect(b.count == 2)
        #expect(b.sortedPoints.map(\.value) == [65, 70])
    }

    @Test func insertBeforeStartIsAnError() {
        var b = QuantitySeriesBuilder(type: .heartRate, start: t0, device: nil)
        #expect { try b.insert(60, start: at(-0.001), end: at(1)) } throws: {
            ($0 as? SeriesBuilderError)?.code == .beforeSeriesStart
        }
        #expect(b.count == 0)
    }

    @Test func otherInsertErrors() throws {
        var b = QuantitySeriesBuilder(type: .heartRate, start: t0, device: nil)
        #expect { try b.insert(.nan, start: at(0), end: at(1)) } throws: { ($0 as? SeriesBuilderError)?.code == .notFinite }
        #expect { try b.insert(.infinity, start: at(0), end: at(1)) } throws: { ($0 as? SeriesBuilderError)?.code == .notFinite }
        #expect { try b.insert(60, start: at(2), end: at(1)) } throws: { ($0 as? SeriesBuilderError)?.code == .invalidInterval }
        try b.insert(60, start: at(2), end: at(2))
        _ = b.finish()
        #expect { try b.insert(60, start: at(3), end: at(4)) } throws: { ($0 as? SeriesBuilderError)?.code == .finished }
    }

    @Test func finishSortsAndSpans() throws {
        var b = QuantitySeriesBuilder(type: .heartRate, start: t0, device: DeviceInfo(name: "strap"), metadata: ["a": "1"])
        try b.insert(80, start: at(10), end: at(11))
        try b.insert(60, start: at(0), end: at(5))
        try b.insert(70, start: at(5), end: at(30))
        let finished = b.finish(metadata: ["a": "2", "b": "3"])
        let s = try #require(finished)
        #expect(s.points.map(\.value) == [60, 70, 80])
        #expect(s.start == t0)
        #expect(s.end == at(30))
        #expect(s.metadata == ["a": "2", "b": "3"])
        #expect(s.device?.name == "strap")
        #expect(s.uuid == b.uuid)
    }

    @Test func emptySeriesFinishesToNil() {
        var b = QuantitySeriesBuilder(type: .heartRate, start: t0, device: nil)
        #expect(b.finish() == nil)
    }

    @Test func temporallyWeightedAggregates() throws {
        var b = QuantitySeriesBuilder(type: .heartRate, start: t0, device: nil)
        try b.insert(60, start: at(0), end: at(3))   // 3 s
        try b.insert(90, start: at(3), end: at(4))   // 1 s
        try b.insert(200, start: at(4), end: at(4))  // instantaneous: weighs nothing
        let finished = b.finish()
        let a = try #require(finished).aggregates
        #expect(a.average == (60 * 3 + 90) / 4.0)
        #expect(a.minimum == 60)
        #expect(a.maximum == 200)
        #expect(a.mostRecent == 200)
        #expect(a.sum == nil)
    }

    @Test func allInstantaneousUsesPlainMean() {
        let points = [point(60, 0, 0), point(80, 1, 1)]
        #expect(QuantityAggregates(points: points, style: .discreteTemporallyWeighted).average == 70)
    }

    @Test func arithmeticAndCumulativeAggregates() throws {
        let points = [point(10, 0, 9), point(20, 9, 10), point(30, 10, 10)]
        let arithmetic = QuantityAggregates(points: points, style: .discreteArithmetic)
        #expect(arithmetic == QuantityAggregates(average: 20, minimum: 10, maximum: 30, mostRecent: 30))
        #expect(QuantityAggregates(points: points, style: .cumulative) == QuantityAggregates(sum: 60))
        #expect(QuantityAggregates(points: [], style: .cumulative) == QuantityAggregates())
        var b = QuantitySeriesBuilder(type: .activeEnergyBurned, start: t0, device: nil)
        try b.insert(1.5, start: at(0), end: at(60))
        try b.insert(2.5, start: at(60), end: at(120))
        #expect(b.finish()?.aggregates == QuantityAggregates(sum: 4))
    }

    @Test func randomInsertsMatchAReplaceMap() throws {
        var rng = SplitMix64(seed: 11)
        var b = QuantitySeriesBuilder(type: .heartRate, start: t0, device: nil)
        var model: [Int: Double] = [:]
        for _ in 0..<2000 {
            let second = Int.random(in: 0..<500, using: &rng)
            let value = Double(Int.random(in: 40...200, using: &rng))
            try b.insert(value, start: at(Double(second)), end: at(Double(second) + 1))
            model[second] = value
        }
        let finished = b.finish()
        let s = try #require(finished)
        #expect(s.points.map(\.value) == model.keys.sorted().compactMap { model[$0] })
        #expect(s.points.map(\.start) == model.keys.sorted().map { at(Double($0)) })
    }
}

@Suite struct HeartbeatSeriesBuilderTests {
    @Test func endIsStartPlusLastOffset() throws {
        var b = HeartbeatSeriesBuilder(start: t0, device: nil, metadata: ["k": "v"])
        try b.addBeat(at: 0.1, precededByGap: true)
        try b.addBeat(at: 0.9, precededByGap: false)
        try b.addBeat(at: 1.75, precededByGap: false)
        let finished = b.finish(metadata: ["reason": "idle"])
        let s = try #require(finished)
        #expect(s.end == t0.addingTimeInterval(1.75))
        #expect(s.start == t0)
        #expect(s.beats.map(\.precededByGap) == [true, false, false])
        #expect(s.metadata == ["k": "v", "reason": "idle"])
        #expect(s.uuid == b.uuid)
    }

    @Test func outOfOrderAndDuplicateBeatsAreRefused() throws {
        var b = HeartbeatSeriesBuilder(start: t0, device: nil)
        try b.addBeat(at: 1, precededByGap: true)
        #expect { try b.addBeat(at: 0.5, precededByGap: false) } throws: { ($0 as? SeriesBuilderError)?.code == .outOfOrder }
        #expect { try b.addBeat(at: 1, precededByGap: false) } throws: { ($0 as? SeriesBuilderError)?.code == .outOfOrder }
        #expect { try b.addBeat(at: -1, precededByGap: false) } throws: { ($0 as? SeriesBuilderError)?.code == .beforeSeriesStart }
        #expect { try b.addBeat(at: .nan, precededByGap: false) } throws: { ($0 as? SeriesBuilderError)?.code == .notFinite }
        #expect(b.count == 1)
    }

    @Test func fullBuilderRefusesMore() throws {
        var b = HeartbeatSeriesBuilder(start: t0, maximumCount: 3, device: nil)
        for i in 0..<3 { try b.addBeat(at: Double(i), precededByGap: false) }
        #expect(b.isFull)
        #expect { try b.addBeat(at: 10, precededByGap: false) } throws: { ($0 as? SeriesBuilderError)?.code == .full }
        #expect(b.count == 3)
        #expect(b.lastOffset == 2)
        #expect(HeartbeatSeriesBuilder.defaultMaximumCount == 1000)
    }

    @Test func nonPositiveMaximumIsRaisedToOne() throws {
        var b = HeartbeatSeriesBuilder(start: t0, maximumCount: 0, device: nil)
        #expect(b.maximumCount == 1)
        try b.addBeat(at: 0, precededByGap: true)
        #expect { try b.addBeat(at: 1, precededByGap: false) } throws: { ($0 as? SeriesBuilderError)?.code == .full }
    }

    @Test func finishedAndEmpty() throws {
        var empty = HeartbeatSeriesBuilder(start: t0, device: nil)
        #expect(empty.finish() == nil)
        #expect { try empty.addBeat(at: 1, precededByGap: false) } throws: { ($0 as? SeriesBuilderError)?.code == .finished }
    }
}
