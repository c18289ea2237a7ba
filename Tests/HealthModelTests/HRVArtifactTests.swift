import Foundation
import HealthModel
import SeededRandom
import Testing

/// Beat times in ticks of 1/1024 s for RR intervals in ms, starting at `start` ticks.
func peaks(_ rrMs: [Double], start: Int = 1024) -> [Int] {
    var sum = 0.0, out = [start]
    for rr in rrMs {
        sum += rr
        out.append(start + Int((sum * 1.024).rounded()))
    }
    return out
}

/// A clean RR chain around `mean` ms: respiratory sinus arrhythmia (±30 ms, a breath every 4.3 beats), a slow
/// sway (±20 ms) and ±3 ms noise.
func smoothRR(_ n: Int, mean: Double = 800, seed: UInt64 = 7) -> [Double] {
    var g = SplitMix64(seed: seed)
    return (0 ..< n).map { k in
        mean + 30 * sin(2 * Double.pi * Double(k) / 4.3) + 20 * sin(Double(k) / 23) + Double.random(in: -3 ... 3, using: &g)
    }
}

@Suite struct HRVArtifactTests {
    @Test func cleanChainIsAllNormal() {
        let c = RRArtifactCorrection(peaks: peaks(smoothRR(300)))
        #expect(c.classes.count == 300)
        #expect(c.classes.allSatisfy { $0 == .normal })
        #expect(c.corrected == 0)
        #expect(c.peaks == peaks(smoothRR(300)))
    }

    @Test func missedBeatIsFoundAndInserted() {
        var rr = smoothRR(300)
        rr[150] += rr[151] // the sensor missed the beat between them
        rr.remove(at: 151)
        let c = RRArtifactCorrection(peaks: peaks(rr))
        #expect(c.classes[150] == .missed)
        #expect(c.classes.enumerated().filter { $0.offset != 150 }.allSatisfy { $0.element == .normal })
        #expect(c.peaks.count == peaks(rr).count + 1)
        #expect(c.intervalsMs().allSatisfy { $0 > 600 && $0 < 1000 })
    }

    @Test func extraBeatIsFoundAndRemoved() {
        var rr = smoothRR(300)
        let whole = rr[150]
        rr[150] = whole * 0.4 // a spurious detection splits one interval in two
        rr.insert(whole * 0.6, at: 151)
        let c = RRArtifactCorrection(peaks: peaks(rr))
        #expect(c.classes[150] == .extra)
        #expect(c.peaks.count == peaks(rr).count - 1)
        #expect(c.intervalsMs().allSatisfy { $0 > 600 && $0 < 1000 })
    }

    @Test func ectopicBeatIsFoundAndMoved() {
        var rr = smoothRR(300)
        rr[150] -= 240 // a premature beat: short, then the compensatory long interval
        rr[151] += 240
        let c = RRArtifactCorrection(peaks: peaks(rr))
        // As in NeuroKit2: the premature interval fails the short-beat rule, the compensatory one the S12 rule.
        #expect(c.classes[150] == .short)
        #expect(c.classes[151] == .ectopic)
        #expect(c.classes.filter { $0 != .normal }.count == 2)
        #expect(c.corrected >= 1)
        #expect(c.peaks.count == peaks(rr).count)
        #expect(c.intervalsMs().allSatisfy { $0 > 600 && $0 < 1000 })
    }

    @Test func longIntervalThatIsNoMissedBeatIsLong() {
        var rr = smoothRR(300)
        rr[150] += 330 // far too long for the neighbourhood, far from twice the median
        let c = RRArtifactCorrection(peaks: peaks(rr))
        #expect(c.classes[150] == .long)
    }

    @Test func classificationNeverCrossesAGap() throws {
        let first = peaks(smoothRR(200, seed: 1))
        // 30 s later, a slower heart: without the gap the step would look like an artifact.
        let second = peaks(smoothRR(200, mean: 1100, seed: 2), start: first.last! + 30 * 1024)
        var beats = first.map { Beat(offset: Double($0) / 1024, precededByGap: false) }
        beats += second.enumerated().map { Beat(offset: Double($1) / 1024, precededByGap: $0 == 0) }
        let a = try HRVAnalysis(beats: beats)
        #expect(a.segments == 2)
        #expect(a.artifacts.intervals == 400)
        #expect(a.artifacts.corrected == 0)
        #expect(a.artifacts.classes["normal"] == 400)
        #expect(a.time.metrics.count == 400)
        #expect(a.time.metrics.differenceCount == 398)
    }

    @Test func summaryWarnsAboveFivePercent() {
        let ok = HRVArtifactSummary(intervals: 100, classes: [.normal: 95, .ectopic: 5], corrected: 5)
        #expect(ok.warning == nil)
        #expect(ok.artifacts == 5)
        #expect(ok.classes.count == RRArtifactClass.allCases.count)
        let bad = HRVArtifactSummary(intervals: 100, classes: [.normal: 94, .missed: 6], corrected: 6)
        #expect(bad.correctedPercent == 6)
        #expect(bad.warning != nil)
    }

    @Test func analysisReportsCorrectionsBesideCorrectedMeasures() throws {
        var rr = smoothRR(600)
        for k in stride(from: 50, to: 550, by: 100) { rr[k] -= 240; rr[k + 1] += 240 }
        let a = try HRVAnalysis(rrIntervalsMs: rr)
        #expect(a.artifacts.classes["ectopic"] == 5)
        #expect(a.artifacts.corrected >= 5)
        #expect(a.artifacts.warning == nil)
        let raw = try HRVMetrics(rrIntervalsMs: rr)
        let corrected = try #require(a.time.metrics.rmssdMs), recorded = try #require(raw.rmssdMs)
        #expect(corrected < recorded)
    }
}
