@testable import HealthModel
import SeededRandom
import Testing

/// The sliding sorted window of `RollingQuantile` against the definition: each centred window (cut at the ends)
/// sorted on its own and its quantile taken as pandas takes it.
@Suite struct RollingQuantileTests {
    /// pandas' `rolling(width, center=True, min_periods=1).quantile(q)` of one index, by sorting its window.
    static func reference(_ x: [Double], width: Int, q: Double, at i: Int) -> Double {
        let before = width / 2, after = width - 1 - width / 2
        let window = x[max(0, i - before) ... min(x.count - 1, i + after)].sorted()
        let m = window.count
        if q == 0.5, m % 2 == 0 { return (window[m / 2] + window[m / 2 - 1]) / 2 }
        let position = Double(m - 1) * q
        let below = Int(position.rounded(.down))
        let fraction = position - Double(below)
        return fraction > 0 && below + 1 < m ? window[below] + (window[below + 1] - window[below]) * fraction : window[below]
    }

    /// Values with many ties (a few levels) and without (continuous), windows wider and narrower than the series,
    /// odd and even widths: every value bit for bit the sorted window's.
    @Test(arguments: [(91, 400), (11, 300), (10, 50), (4, 9), (1, 20), (91, 37), (91, 91), (6, 3)])
    func everyWindowIsTheSortedWindow(width: Int, count: Int) {
        var g = SplitMix64(seed: UInt64(width * 1000 + count))
        let tied = (0 ..< count).map { _ in Double(Int.random(in: 0 ..< 6, using: &g)) }
        let continuous = (0 ..< count).map { _ in Double.random(in: -2 ... 2, using: &g) }
        let quantiles = [0.25, 0.5, 0.75, 0.1]
        for x in [tied, continuous, tied.sorted(), continuous.sorted(by: >)] {
            let out = RollingQuantile.centred(x, width: width, quantiles: quantiles)
            #expect(out.count == quantiles.count)
            for (qi, q) in quantiles.enumerated() {
                let expected = x.indices.map { Self.reference(x, width: width, q: q, at: $0) }
                #expect(out[qi].map(\.bitPattern) == expected.map(\.bitPattern), "width \(width) q \(q)")
            }
        }
    }

    @Test func emptySeriesAndInfinities() {
        #expect(RollingQuantile.centred([], width: 11, quantiles: [0.5]) == [[]])
        let x: [Double] = [1, .infinity, -.infinity, 3, 2, .infinity, 0]
        let out = RollingQuantile.centred(x, width: 3, quantiles: [0.5])[0]
        #expect(out == x.indices.map { Self.reference(x, width: 3, q: 0.5, at: $0) })
    }
}
