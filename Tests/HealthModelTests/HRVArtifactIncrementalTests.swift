@testable import HealthModel
import SeededRandom
import Testing

/// The iterative correction's later passes recompute only the rolling windows around changed beats
/// (`RRArtifactWindows`): the result must be the full recomputation's, exactly.
@Suite struct HRVArtifactIncrementalTests {
    /// A clean chain of `n` intervals with about `rate` of them spoiled: missed beats (two intervals merged),
    /// extra beats (one split), ectopic pairs, long and short beats, sometimes two artifacts side by side.
    static func spoiledRR(_ n: Int, rate: Double, seed: UInt64) -> [Double] {
        var g = SplitMix64(seed: seed)
        var rr = smoothRR(n, mean: Double.random(in: 600 ... 1000, using: &g), seed: seed &+ 1)
        var k = 2
        while k < rr.count - 3 {
            defer { k += 1 }
            guard Double.random(in: 0 ..< 1, using: &g) < rate else { continue }
            switch Int.random(in: 0 ..< 6, using: &g) {
            case 0: rr[k] += rr[k + 1]; rr.remove(at: k + 1) // missed
            case 1: // extra
                let a = rr[k] * Double.random(in: 0.2 ... 0.6, using: &g)
                rr[k] -= a
                rr.insert(a, at: k + 1)
            case 2: // ectopic
                let d = rr[k] * Double.random(in: 0.2 ... 0.4, using: &g)
                rr[k] -= d
                rr[k + 1] += d
            case 3: rr[k] *= Double.random(in: 1.25 ... 1.6, using: &g) // long
            case 4: rr[k] *= Double.random(in: 0.5 ... 0.8, using: &g) // short
            default: // two beats missed side by side, then a short one
                rr[k] += rr[k + 1] + rr[k + 2]
                rr.removeSubrange(k + 1 ... k + 2)
                rr[k + 1] *= 0.7
            }
        }
        return rr
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func incrementalCorrectionIsTheFullOne(seed: UInt64) {
        let input = peaks(Self.spoiledRR(4000, rate: 0.04 + 0.01 * Double(seed), seed: seed))
        let full = RRArtifactCorrection(peaks: input, ticksPerSecond: 1024, incremental: false)
        let incremental = RRArtifactCorrection(peaks: input, ticksPerSecond: 1024, incremental: true)
        #expect(full.passes >= 2)
        #expect(full.peaks.count != input.count) // beats were removed or inserted
        #expect(incremental == full)
    }

    /// Each later pass on its own: the pass over the corrected beats reusing the pass before is the whole
    /// recomputation (classes, artifact lists and every rolling value, bit for bit).
    @Test(arguments: [11, 12, 13] as [UInt64])
    func incrementalPassIsTheFullOne(seed: UInt64) {
        var current = peaks(Self.spoiledRR(3000, rate: 0.08, seed: seed))
        var pass = RRArtifactPass(peaks: current, ticksPerSecond: 1024)
        var compared = 0
        while pass.total > 0 && compared < 4 {
            let before = current.count
            _ = RRArtifactCorrection.correct(pass, &current)
            let full = RRArtifactPass(peaks: current, ticksPerSecond: 1024)
            let reused = RRArtifactPass(peaks: current, ticksPerSecond: 1024, reusing: pass.windows)
            Self.expectSame(reused, full)
            if compared == 0 { #expect(current.count != before) }
            pass = full
            compared += 1
        }
        #expect(compared >= 2)
    }

    /// Reuse never depends on the windows coming from the pass before: windows of another series (beats shifted,
    /// dropped, a different start) give the full result too.
    @Test func unrelatedWindowsGiveTheFullResult() {
        let input = peaks(Self.spoiledRR(2500, rate: 0.05, seed: 21))
        var g = SplitMix64(seed: 22)
        var other = Array(input.dropFirst(37))
        other = other.enumerated().compactMap { k, p in
            let r = Double.random(in: 0 ..< 1, using: &g)
            return r < 0.01 ? nil : r < 0.02 ? p + 3 : k % 500 == 0 ? p + 1 : p
        }
        other.sort()
        let previous = RRArtifactPass(peaks: other, ticksPerSecond: 1024)
        Self.expectSame(
            RRArtifactPass(peaks: input, ticksPerSecond: 1024, reusing: previous.windows),
            RRArtifactPass(peaks: input, ticksPerSecond: 1024))
    }

    static func expectSame(_ a: RRArtifactPass, _ b: RRArtifactPass) {
        #expect(a.classes == b.classes)
        #expect(a.ectopic == b.ectopic && a.missed == b.missed && a.extra == b.extra && a.longShort == b.longShort)
        let bits = { (x: [Double]) in x.map(\.bitPattern) }
        let (x, y) = (a.windows!, b.windows!)
        #expect(bits(x.medrr) == bits(y.medrr))
        #expect(bits(x.th1) == bits(y.th1))
        #expect(bits(x.mrrs) == bits(y.mrrs))
        #expect(bits(x.th2) == bits(y.th2))
    }
}
