import Foundation
import HealthModel
import Testing

/// The live statistics of an active session agree with `SessionStatistics` over the same beats, value by value.
@Suite struct LiveSessionStatisticsTests {
    let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

    @Test func rmssdMatchesTheStoredComputationAndNeverCrossesAGapOrASecondDevice() throws {
        // Strap: 0, 0.8, 1.7, 2.5 | gap | 10, 10.9, 11.7. Armband worn at once, interleaved: 0.3, 1.4, 2.2.
        let strap: [(Double, Bool)] = [(0, false), (0.8, false), (1.7, false), (2.5, false), (10, true), (10.9, false), (11.7, false)]
        let armband: [(Double, Bool)] = [(0.3, false), (1.4, false), (2.2, false)]
        var live = LiveSessionStatistics(start: t0)
        let strapEvents: [(String, Double, Bool)] = strap.map { ("strap", $0.0, $0.1) }
        var events = strapEvents + armband.map { ("armband", $0.0, $0.1) }
        events.sort { $0.1 < $1.1 }
        for (device, t, gap) in events { live.addBeat(device: device, at: t0.addingTimeInterval(t), startsSegment: gap) }
        // Beats before the session's start do not count.
        live.addBeat(device: "strap", at: t0.addingTimeInterval(-1), startsSegment: false)

        func series(_ beats: [(Double, Bool)]) -> HeartbeatSeriesSample {
            HeartbeatSeriesSample(start: t0, end: t0.addingTimeInterval(beats.last?.0 ?? 0),
                                  beats: beats.map { Beat(offset: $0.0, precededByGap: $0.1) }, device: nil)
        }
        let stored = try SessionStatistics(start: t0, end: t0.addingTimeInterval(20), heartbeatSeries: [series(strap), series(armband)],
                                           heartRate: [], energy: [])
        #expect(live.beats == stored.beats)
        let rmssd = try #require(live.rmssdMs)
        #expect(abs(rmssd - (stored.rmssdMs ?? -1)) < 1e-3, "live \(rmssd), stored \(String(describing: stored.rmssdMs))")
        // Strap differences: 900−800, 800−900 (before the gap), 800−900 (after); armband: 800−1100.
        #expect(abs(rmssd - ((100.0 * 100 * 3 + 300 * 300) / 4).squareRoot()) < 1e-3)
    }

    @Test func heartRateIsTheLatestAndATimeWeightedAverage() {
        var live = LiveSessionStatistics(start: t0)
        #expect(live.averageBPM == nil && live.currentBPM == nil && live.rmssdMs == nil)
        live.addHeartRate(device: "strap", bpm: 60, at: t0)
        #expect(live.averageBPM == 60)
        live.addHeartRate(device: "strap", bpm: 120, at: t0.addingTimeInterval(3))   // 60 held 3 s
        live.addHeartRate(device: "strap", bpm: 90, at: t0.addingTimeInterval(4))    // 120 held 1 s
        live.addHeartRate(device: "strap", bpm: 90, at: t0.addingTimeInterval(100))  // 90 held 96 s: at most 5 s
        let weighted: Double = 60 * 3 + 120 * 1 + 90 * 5
        #expect(live.averageBPM == weighted / 9)
        #expect(live.currentBPM == 90 && live.currentAt == t0.addingTimeInterval(100))
        live.breakSegment(device: "strap")
        live.addBeat(device: "strap", at: t0.addingTimeInterval(101), startsSegment: false)
        live.addBeat(device: "strap", at: t0.addingTimeInterval(102), startsSegment: false)
        #expect(live.beats == 2 && live.rmssdMs == nil)
    }
}
