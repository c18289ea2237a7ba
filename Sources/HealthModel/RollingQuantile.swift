/// Centred rolling quantiles with pandas' conventions (`Series.rolling(w, center=True, min_periods=1)`):
/// the window of index i holds the values at i − ⌊w/2⌋ … i + (w − 1 − ⌊w/2⌋), cut at both ends of the series;
/// a quantile interpolates linearly between the order statistics at (m − 1)·q of the m values
/// (pandas' default `interpolation="linear"`; the median is q = 0.5). NaN values are not expected.
///
/// The window is kept sorted in a buffer of `width` values: a step that lets one value in and one out shifts only
/// the values between the two positions (one binary search each), so a step costs O(log w) comparisons and at
/// most w moves, with no allocation. The order statistics are the window's, so the result does not depend on how
/// the window is kept.
enum RollingQuantile {
    /// The centred rolling quantiles `qs` of `values` over windows of `width` values: one array per quantile.
    static func centred(_ values: [Double], width: Int, quantiles qs: [Double]) -> [[Double]] {
        let n = values.count
        guard n > 0, width > 0 else { return qs.map { _ in [Double](repeating: .nan, count: n) } }
        let before = width / 2, after = width - 1 - width / 2
        var flat = [Double](repeating: .nan, count: n * qs.count)
        var sorted = [Double](repeating: 0, count: width + 1)
        values.withUnsafeBufferPointer { v in
            sorted.withUnsafeMutableBufferPointer { w in
                flat.withUnsafeMutableBufferPointer { out in
                    var m = 0
                    var lo = 0, hi = 0 // the window is v[lo ..< hi]
                    for i in 0 ..< n {
                        let newLo = max(0, i - before), newHi = min(n, i + after + 1)
                        while hi < newHi && lo < newLo {
                            replace(w, m, old: v[lo], new: v[hi])
                            hi += 1
                            lo += 1
                        }
                        while hi < newHi {
                            insert(w, &m, v[hi])
                            hi += 1
                        }
                        while lo < newLo {
                            remove(w, &m, v[lo])
                            lo += 1
                        }
                        for (qi, q) in qs.enumerated() {
                            out[qi * n + i] = quantile(w, m, q)
                        }
                    }
                }
            }
        }
        return qs.indices.map { Array(flat[$0 * n ..< ($0 + 1) * n]) }
    }

    /// Quantile q of the m sorted values in w (pandas' linear interpolation; its median of an even count).
    @inline(__always)
    private static func quantile(_ w: UnsafeMutableBufferPointer<Double>, _ m: Int, _ q: Double) -> Double {
        if q == 0.5, m % 2 == 0 { return (w[m / 2] + w[m / 2 - 1]) / 2 } // pandas' median of an even count
        let position = Double(m - 1) * q
        let below = Int(position.rounded(.down))
        let fraction = position - Double(below)
        let a = w[below]
        return fraction > 0 && below + 1 < m ? a + (w[below + 1] - a) * fraction : a
    }

    /// The first index in w[0 ..< m] (ascending) whose element is not less than `value`. Branch-free halving (the
    /// comparison picks the next base by a conditional move): the comparisons of a sliding window are unpredictable,
    /// and mispredicted branches were most of the rolling quantiles' time.
    @inline(__always)
    private static func lowerBound(_ w: UnsafeMutableBufferPointer<Double>, _ m: Int, _ value: Double) -> Int {
        guard m > 0 else { return 0 }
        var base = 0, n = m
        while n > 1 {
            let half = n / 2
            base = w[base &+ half] < value ? base &+ half : base
            n &-= half
        }
        return w[base] < value ? base &+ 1 : base
    }

    private static func insert(_ w: UnsafeMutableBufferPointer<Double>, _ m: inout Int, _ value: Double) {
        let p = lowerBound(w, m, value)
        var k = m
        while k > p {
            w[k] = w[k - 1]
            k -= 1
        }
        w[p] = value
        m += 1
    }

    private static func remove(_ w: UnsafeMutableBufferPointer<Double>, _ m: inout Int, _ value: Double) {
        // The first element not less than `value` is the value itself.
        var k = lowerBound(w, m, value)
        while k < m - 1 {
            w[k] = w[k + 1]
            k += 1
        }
        m -= 1
    }

    /// Removes `old` (in the window) and inserts `new`, shifting only the values between their positions.
    private static func replace(_ w: UnsafeMutableBufferPointer<Double>, _ m: Int, old: Double, new: Double) {
        let k = lowerBound(w, m, old)
        let p = lowerBound(w, m, new)
        if p > k {
            // old < new: w[k + 1 ..< p] (all below new) move down one; new goes just before w[p].
            var j = k
            while j < p - 1 {
                w[j] = w[j + 1]
                j += 1
            }
            w[p - 1] = new
        } else {
            // new ≤ old: w[p ..< k] (all at least new) move up one; new takes p.
            var j = k
            while j > p {
                w[j] = w[j - 1]
                j -= 1
            }
            w[p] = new
        }
    }
}
