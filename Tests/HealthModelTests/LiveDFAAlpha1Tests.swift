import Foundation
import HealthModel
import SeededRandom
import Testing

@Suite struct LiveDFAAlpha1Tests {
    /// Beats for RR intervals in ms on the 1/1024 s grid, the first beat at 1 s.
    func beats(_ rr: [Double]) -> [Beat] {
        peaks(rr).enumerated().map { Beat(offset: Double($1) / 1024, precededByGap: $0 == 0) }
    }

    @Test func updatesEveryFewSecondsOverATwoMinuteWindow() throws {
        var live = LiveDFAAlpha1()
        let rr = smoothRR(600, mean: 500) // 5 minutes at 120 bpm
        let readings = beats(rr).compactMap { live.append($0) }
        // One reading every 5 s of beat time over 300 s.
        #expect(readings.count >= 58 && readings.count <= 61)
        let last = try #require(readings.last)
        #expect(last.windowFull)
        #expect(abs(last.intervals - 240) <= 1) // 120 s of 500 ms intervals
        #expect(last.artifactPercent == 0)
        #expect(!last.withheld)
        // The last window's α1 is the batch DFA of its intervals.
        let window = Array(rr.suffix(last.intervals)).map { $0 }
        let a1 = try #require(last.alpha1)
        let expected = try #require(DetrendedFluctuation.alpha(
            RRArtifactCorrection(peaks: peaks(window)).intervalsMs(), scales: DetrendedFluctuation.shortScales))
        #expect(abs(a1 - expected) < 0.05)
        #expect(try #require(readings.first).alpha1 == nil) // one beat: nothing yet
        #expect(!(try #require(readings.first).windowFull))
    }

    @Test func withholdsAlpha1AboveFivePercentArtifacts() throws {
        var rr = smoothRR(600, mean: 500)
        for k in stride(from: 300, to: 590, by: 12) { rr[k] -= 150; rr[k + 1] += 150 } // ~8 % ectopic
        var live = LiveDFAAlpha1()
        let readings = beats(rr).compactMap { live.append($0) }
        let before = try #require(readings.first { $0.offset > 140 && $0.offset < 150 })
        #expect(!before.withheld && before.alpha1 != nil)
        let last = try #require(readings.last)
        #expect(last.artifactPercent > 5)
        #expect(last.withheld)
        #expect(last.alpha1 == nil)
    }

    @Test func aGapSplitsTheWindowAndResetForgets() throws {
        var live = LiveDFAAlpha1()
        var all = beats(smoothRR(200, mean: 500))
        let resume = all.last!.offset + 20
        all += peaks(smoothRR(60, mean: 500, seed: 9)).enumerated().map {
            Beat(offset: resume + Double($1 - 1024) / 1024, precededByGap: $0 == 0)
        }
        for b in all { _ = live.append(b) }
        let r = try #require(live.reading())
        // 120 s window: the 60 intervals after the gap and the part of the first run inside the window.
        #expect(r.intervals < 240 - 40) // 20 s of gap hold no interval
        live.reset()
        #expect(live.reading() == nil)
    }
}
