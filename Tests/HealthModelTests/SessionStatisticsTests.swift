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

    /// A heart at 800 ms breathing at 0.25 Hz for `seconds`, with one premature (ectopic) beat at `ectopicAt`.
    func breathing(seconds: Double, ectopicAt: Int) -> [(Double, Bool)] {
        var t = 0.0, beats: [(Double, Bool)] = [(0, false)], k = 0
        while t < seconds {
            var rr = 0.8 + 0.04 * sin(2 * Double.pi * 0.25 * t)
            if k == ectopicAt { rr -= 0.3 } else if k == ectopicAt + 1 { rr += 0.3 }
            t += rr
            k += 1
            beats.append(((t * 1024).rounded() / 1024, false))
        }
        return beats
    }

    @Test func statisticsCarryTheAnalysisOfTheCorrectedIntervals() throws {
        let s = series(at: 0, beats: breathing(seconds: 400, ectopicAt: 200))
        let stats = try SessionStatistics(start: t0, end: t0.addingTimeInterval(500), heartbeatSeries: [s],
                                          heartRate: [], energy: [])
        let a = try #require(stats.analysis)
        #expect(a == (try HRVAnalysis(beats: s.beats)))
        #expect(a.artifacts.intervals == stats.beats - 1)
        #expect(a.artifacts.corrected >= 1 && a.artifacts.artifacts >= 1)
        #expect(a.time.pnn20Percent != nil && a.time.medianNNMs > 700)
        #expect(a.poincare != nil && a.dfaAlpha1 != nil && a.dfaAlpha2 != nil)
        #expect(try #require(a.frequency?.lfHfRatio) < 1) // breathing: HF
        #expect(a.lombScargle?.hfPeakHz.map { abs($0 - 0.25) < 0.01 } == true)
        // The recorded chain's figures stay those of the raw RR; the corrected ones differ around the ectopic beat.
        #expect(stats.rmssdMs != a.time.metrics.rmssdMs)
        let back = try JSONDecoder().decode(SessionStatistics.self, from: JSONEncoder().encode(stats))
        #expect(back == stats)
    }

    @Test func statisticsStoredBeforeTheAnalysisStillDecode() throws {
        // A row as heartd stored it before `analysis` existed.
        let old = #"{"beats":5,"durationSeconds":20,"gapSeconds":16.5,"pnn50Percent":0,"rmssdMs":0,"sdnnMs":288.67513459481287}"#
        let stats = try JSONDecoder().decode(SessionStatistics.self, from: Data(old.utf8))
        #expect(stats.analysis == nil)
        #expect(stats.beats == 5 && stats.gapSeconds == 16.5 && stats.rmssdMs == 0)
    }

    @Test func evenBeatsGiveStatisticsThatEncode() throws {
        // Intervals all equal (a simulator, a test strap): every figure JSON can carry.
        let s = series(at: 0, beats: (0 ..< 300).map { (Double($0), false) })
        let stats = try SessionStatistics(start: t0, end: t0.addingTimeInterval(400), heartbeatSeries: [s],
                                          heartRate: [], energy: [])
        #expect(stats.analysis?.time.metrics.sdnnMs == 0)
        let json = try JSONEncoder().encode(stats)
        #expect(try JSONDecoder().decode(SessionStatistics.self, from: json).analysis?.artifacts == stats.analysis?.artifacts)
    }
}
