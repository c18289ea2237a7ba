import Foundation
import HealthModel
import Testing
@testable import Ingest

/// Heart-rate values and energy increments.
@Suite struct ValueTests {
    @Test func heartRateHoldsUntilTheNextArrivalCappedAtTheGapThreshold() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            notification(1, hrm(60)), notification(2, hrm(120)), notification(10, hrm(90)),
        ])
        await pipeline.finishAll(reason: .shutdown, at: at(11))
        let hr = try #require(sink.contents.quantities(.heartRate).first)
        let points = hr.points.map { [$0.value, $0.start.timeIntervalSince1970 - t0, $0.end.timeIntervalSince1970 - t0] }
        #expect(points == [[60, 1, 2], [120, 2, 5], [90, 10, 11]])
        // Temporally weighted: (60·1 + 120·3 + 90·1) / 5.
        #expect(hr.aggregates.average == 102)
        #expect(hr.aggregates.mostRecent == 90)
        #expect(hr.aggregates.minimum == 60 && hr.aggregates.maximum == 120)
    }

    @Test func heartRateIsSkippedWithoutContactAndAtZero() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            notification(1, hrm(70)), notification(2, hrm(75, contact: .notDetected)), notification(3, hrm(0)),
            notification(4, hrm(80, contact: .notSupported)),
        ])
        await pipeline.finishAll(reason: .shutdown, at: at(4))
        let hr = try #require(sink.contents.quantities(.heartRate).first)
        #expect(hr.points.map(\.value) == [70, 80])
        // The value without contact ends the previous one.
        #expect(hr.points.first?.end == at(2).wall)
        let counters = try #require(await pipeline.status().first).counters
        #expect(counters.skippedHRNoContact == 1)
        #expect(counters.skippedHRZero == 1)
    }

    @Test func energyIncrementsWithBaselineResetAndCeiling() async throws {
        let (pipeline, sink) = makePipeline()
        let readings: [UInt16] = [100, 105, 110, 3, 10, 65535, 65535, 65535, 20]
        await feed(pipeline, readings.enumerated().map { notification(Double($0.offset + 1), hrm(energy: $0.element)) })
        await pipeline.finishAll(reason: .shutdown)
        let energy = try #require(sink.contents.quantities(.activeEnergyBurned).first)
        // Baseline 100 adds nothing; 3 and 20 are resets; at 65535 counting stops.
        #expect(energy.points.map(\.value) == [5, 5, 3, 7, 65525, 20])
        #expect(energy.aggregates.sum == 65565)
        // Each increment spans the previous reading to this one.
        #expect(energy.points.first.map { $0.start.timeIntervalSince1970 - t0 } == 1)
        #expect(energy.points.first.map { $0.end.timeIntervalSince1970 - t0 } == 2)
        #expect(energy.points.last.map { $0.start.timeIntervalSince1970 - t0 } == 8)
    }

    @Test func energyBaselineRestartsAfterReconnection() async throws {
        let (pipeline, sink) = makePipeline()
        await feed(pipeline, [
            notification(1, hrm(energy: 10)), notification(2, hrm(energy: 12)),
            .disconnected(address: addressA, reason: .linkLost, at: at(3)),
            connected(4), notification(5, hrm(energy: 500)), notification(6, hrm(energy: 501)),
        ])
        await pipeline.finishAll(reason: .shutdown)
        #expect(sink.contents.quantities(.activeEnergyBurned).map { $0.aggregates.sum } == [2, 1])
    }

    @Test func energyAccumulatorRules() {
        var acc = EnergyAccumulator()
        #expect(acc.add(65534, at: 0) == nil)
        #expect(acc.add(65535, at: 1)?.kilojoules == 1)
        #expect(acc.add(65535, at: 2) == nil)
        #expect(acc.add(0, at: 3) == nil)          // reset to 0: nothing burnt yet
        #expect(acc.add(4, at: 4)?.kilojoules == 4)
    }
}
