import Foundation
import HealthModel
import Testing

@Suite struct SessionStatisticsTests {
    let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

    func series(at offset: TimeInterval, beats: [(Double, Bool)]) -> HeartbeatSeriesSample {
        let start = t0.addingTimeInterval(offset)
        let b = beats.map { Beat(offset: $0.0, precededByGap: $0.1) }
        return HeartbeatSeriesSample(start: start, end: start.addingTimeInterval(b.last?.offset ?? 0), beats: b, device: nil)
    }

    @Test func hrvNeverCrossesAGapAndBeatsOutsideTheSessionDoNotCount() throws {
        // Beats at 0, 1, 2 | gap | 10, 11.5 and one beat after the session's end.
        let s = series(at: 0, beats: [(0, false), (1, false), (2, false), (10, true), (11.5, false), (30, false)])
        let stats = try SessionStatistics(start: t0, end: t0.addingTimeInterval(20), heartbeatSeries: [s],
                                          heartRate: [], energy: [])
        #expect(stats.beats == 5)
        let expected = try HRVMetrics(segments: [[1000, 1000], [1500]])
        #expect(stats.sdnnMs == expected.sdnnMs)
        #expect(stats.rmssdMs == 0) // one difference (1000 → 1000) inside the first segment; none across the gap
        #expect(stats.pnn50Percent == 0)
        // Covered: [0, 2] and [10, 11.5] → 3.5 s of 20 s.
        #expect(stats.gapSeconds == 16.5)
        #expect(stats.durationSeconds == 20)
    }

    @Test func heartRateIsTemporallyWeightedAndEnergySummed() throws {
        let hr = [QuantityPoint(value: 60, start: t0, end: t0.addingTimeInterval(30)),
                  QuantityPoint(value: 120, start: t0.addingTimeInterval(30), end: t0.addingTimeInterval(40))]
        let kj = [QuantityPoint(value: 2, start: t0, end: t0.addingTimeInterval(10)),
                  QuantityPoint(value: 3, start: t0.addingTimeInterval(10), end: t0.addingTimeInterval(20))]
        let stats = try SessionStatistics(start: t0, end: t0.addingTimeInterval(40), heartbeatSeries: [],
                                          heartRate: hr, energy: kj)
        #expect(stats.heartRateAverage == 75)
        #expect(stats.heartRateMinimum == 60)
        #expect(stats.heartRateMaximum == 120)
        #expect(stats.activeEnergyKJ == 5)
        #expect(stats.sdnnMs == nil)
        #expect(stats.gapSeconds == 40)
    }

    @Test func twoDevicesNeverPairBeatsAcrossDevices() throws {
        let a = series(at: 0, beats: [(0, false), (1, false), (2, false)])
        let b = series(at: 0.5, beats: [(0, false), (0.8, false), (1.6, false)])
        let stats = try SessionStatistics(start: t0, end: t0.addingTimeInterval(10), heartbeatSeries: [a, b],
                                          heartRate: [], energy: [])
        let expected = try HRVMetrics(segments: [[1000, 1000], [800, 800]])
        #expect(stats.beats == 6)
        #expect(stats.sdnnMs == expected.sdnnMs)
        #expect(stats.rmssdMs == 0)
        // Union of [0, 2] and [0.5, 2.1].
        #expect(abs(stats.gapSeconds - 7.9) < 1e-6)
    }

    @Test func anEndBeforeTheStartIsAnError() {
        #expect(throws: StatisticsError.self) {
            try SessionStatistics(start: t0, end: t0.addingTimeInterval(-1), heartbeatSeries: [], heartRate: [], energy: [])
        }
    }
}
