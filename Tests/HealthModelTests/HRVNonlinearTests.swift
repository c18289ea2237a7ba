import Foundation
import HealthModel
import SeededRandom
import Testing

@Suite struct HRVNonlinearTests {
    func noise(_ n: Int, seed: UInt64) -> [Double] {
        var g = SplitMix64(seed: seed)
        return (0 ..< n).map { _ in 800 + Double.random(in: -50 ... 50, using: &g) }
    }

    @Test func dfaOfWhiteNoiseIsAboutHalfAndOfARandomWalkAboutOneAndAHalf() throws {
        let white = noise(4000, seed: 3)
        let a1 = try #require(DetrendedFluctuation.alpha(white, scales: DetrendedFluctuation.shortScales))
        let a2 = try #require(DetrendedFluctuation.alpha(white, scales: DetrendedFluctuation.longScales))
        #expect(abs(a1 - 0.5) < 0.1)
        #expect(abs(a2 - 0.5) < 0.1)
        var sum = 0.0
        let walk = white.map { sum += $0 - 800; return 800 + sum / 10 }
        let w1 = try #require(DetrendedFluctuation.alpha(walk, scales: DetrendedFluctuation.shortScales))
        #expect(abs(w1 - 1.5) < 0.2)
    }

    @Test func dfaNeedsAWindowAtEveryScaleInsideASegment() {
        #expect(DetrendedFluctuation.alpha(noise(16, seed: 1), scales: DetrendedFluctuation.shortScales) == nil)
        #expect(DetrendedFluctuation.alpha(noise(17, seed: 1), scales: DetrendedFluctuation.shortScales) != nil)
        // Two segments of 16 never make a window of 16 across the gap.
        #expect(DetrendedFluctuation.alpha(segments: [noise(16, seed: 1), noise(16, seed: 2)],
                                           scales: DetrendedFluctuation.shortScales) == nil)
    }

    @Test func poincareOfAKnownChain() throws {
        let p = try #require(PoincareMetrics(segments: [[800, 900, 800, 900]]))
        // Pairs (800,900), (900,800), (800,900): x1 = ∓100/√2 → SD1 = √(4/3)·100/√2 ≈ 81.65; x2 constant → SD2 = 0.
        #expect(close(p.sd1Ms, (4.0 / 3).squareRoot() * 100 / 2.0.squareRoot()))
        #expect(p.sd2Ms == 0)
        #expect(p.pairs == 3)
        #expect(PoincareMetrics(segments: [[800, 900], [850, 860]]) != nil)
        #expect(PoincareMetrics(segments: [[800, 900], [850]]) == nil)
        // SD2 = 0: SD1/SD2 is infinite, sent as null (JSON has no infinity) and recomputed when decoded.
        let json = try JSONEncoder().encode(p)
        #expect(String(decoding: json, as: UTF8.self).contains(#""sd1_sd2":null"#))
        let back = try JSONDecoder().decode(PoincareMetrics.self, from: json)
        #expect(back.sd1Ms == p.sd1Ms && back.sd2Ms == 0 && back.sd1sd2Ratio.isInfinite && back.pairs == 3)
    }

    @Test func timeDomainAddsMedianMeanAndPNN20() throws {
        let t = try HRVTimeDomain(segments: [[800, 830, 805], [900, 905]])
        #expect(close(t.meanNNMs, 848))
        #expect(t.medianNNMs == 830)
        // Differences 30, 25 | 5: two of three above 20 ms.
        #expect(close(t.pnn20Percent, 200.0 / 3))
        #expect(try HRVTimeDomain(segments: [[800, 900]]).medianNNMs == 850)
    }

    /// The median NN by selection is the sorted series' middle (or the mean of its middle two), bit for bit: odd and
    /// even counts, many ties (intervals on the 1/1024 s grid), sorted and reversed input, split into segments.
    @Test func medianNNIsTheSortedMiddle() throws {
        var g = SplitMix64(seed: 41)
        for count in [2, 3, 16, 17, 18, 100, 1001, 5000] {
            let tied = (0 ..< count).map { _ in Double(Int.random(in: 700 ... 720, using: &g)) * 1000 / 1024 }
            let spread = (0 ..< count).map { _ in Double.random(in: 400 ... 1400, using: &g) }
            for x in [tied, spread, tied.sorted(), spread.sorted(by: >)] {
                let sorted = x.sorted(), m = count / 2
                let expected = count % 2 == 1 ? sorted[m] : (sorted[m - 1] + sorted[m]) / 2
                let halves = [Array(x.prefix(count / 3)), Array(x.dropFirst(count / 3))].filter { !$0.isEmpty }
                #expect(try HRVTimeDomain(segments: halves).medianNNMs == expected, "\(count)")
            }
        }
    }
}
