/// Centred rolling quantiles with pandas' conventions (`Series.rolling(w, center=True, min_periods=1)`):
/// the window of index i holds the values at i − ⌊w/2⌋ … i + (w − 1 − ⌊w/2⌋), cut at both ends of the series;
/// a quantile interpolates linearly between the order statistics at (m − 1)·q of the m values
/// (pandas' default `interpolation="linear"`; the median is q = 0.5). NaN values are not expected.
///
/// The window is kept sorted in a buffer of `width` values between two sentinels (−∞ before, +∞ after). A step
/// that lets one value in and one out finds the old value by one branch-free binary search and slides the new one
/// from the old one's place towards its own, moving only the values between the two (an insertion-sort step: no
/// second search), so a step costs O(log w) comparisons and at most w moves, with no allocation. Where each
/// quantile's order statistics sit is tabulated per window size. The order statistics are the window's, so the
/// result does not depend on how the window is kept.
enum RollingQuantile {
    /// The centred rolling quantiles `qs` of `values` over windows of `width` values: one array per quantile.
    static func centred(_ values: [Double], width: Int, quantiles qs: [Double]) -> [[Double]] {
        let n = values.count
        guard n > 0, width > 0 else { return qs.map { _ in [Double](repeating: .nan, count: n) } }
        let ranks = qs.map { q in (0 ... width).map { Rank(count: $0, quantile: q) } }
        var flat = [Double](repeating: .nan, count: n * qs.count)
        flat.withUnsafeMutableBufferPointer { out in
            slide(values, width: width) { i, w, m in
                for qi in ranks.indices { out[qi * n + i] = ranks[qi][m].value(w) }
            }
        }
        return qs.count == 1 ? [flat] : qs.indices.map { Array(flat[$0 * n ..< ($0 + 1) * n]) }
    }

    /// The centred rolling quantiles `low` and `high` of `values` combined index by index (`combine(low, high)`),
    /// in one array: no array per quantile.
    static func centred(
        _ values: [Double], width: Int, quantiles low: Double, _ high: Double, combine: (Double, Double) -> Double
    ) -> [Double] {
        let n = values.count
        guard n > 0, width > 0 else { return [Double](repeating: .nan, count: n) }
        let lows = (0 ... width).map { Rank(count: $0, quantile: low) }
        let highs = (0 ... width).map { Rank(count: $0, quantile: high) }
        var out = [Double](repeating: .nan, count: n)
        out.withUnsafeMutableBufferPointer { out in
            slide(values, width: width) { i, w, m in out[i] = combine(lows[m].value(w), highs[m].value(w)) }
        }
        return out
    }

    /// Slides the centred window over `values`, handing `visit` each index, the window's m values sorted (from
    /// w[0]) and m.
    @inline(__always)
    private static func slide(
        _ values: [Double], width: Int, _ visit: (_ i: Int, _ w: UnsafeMutablePointer<Double>, _ m: Int) -> Void
    ) {
        let n = values.count
        let before = width / 2, after = width - 1 - width / 2
        // The window between its sentinels: buffer[0] = −∞, the m values from buffer[1], +∞ after them up to the
        // size binary lifting reaches (2 · lift − 1 values, the first power of two above width less one).
        var lift = 1
        while 2 * lift - 1 < width { lift *= 2 }
        var buffer = [Double](repeating: .infinity, count: max(width, 2 * lift - 1) + 2)
        buffer[0] = -.infinity
        values.withUnsafeBufferPointer { v in
            buffer.withUnsafeMutableBufferPointer { buffer in
                let w = buffer.baseAddress! + 1
                var m = 0
                var lo = 0, hi = 0 // the window is v[lo ..< hi]
                for i in 0 ..< n {
                    let newLo = max(0, i - before), newHi = min(n, i + after + 1)
                    while hi < newHi && lo < newLo {
                        replace(w, m, old: v[lo], new: v[hi], lift: lift)
                        hi += 1
                        lo += 1
                    }
                    while hi < newHi {
                        insert(w, &m, v[hi])
                        hi += 1
                    }
                    while lo < newLo {
                        remove(w, &m, v[lo], lift: lift)
                        lo += 1
                    }
                    visit(i, w, m)
                }
            }
        }
    }

    /// Where quantile q of m sorted values lies (pandas' linear interpolation; its median of an even count is the
    /// mean of the middle two): computed once per window size, the same arithmetic as at every index.
    struct Rank {
        var below = 0
        var fraction = 0.0
        var meanOfTwo = false

        init(count m: Int, quantile q: Double) {
            guard m > 0 else { return }
            if q == 0.5, m % 2 == 0 {
                meanOfTwo = true
                below = m / 2 - 1
                return
            }
            let position = Double(m - 1) * q
            below = Int(position.rounded(.down))
            let f = position - Double(below)
            fraction = f > 0 && below + 1 < m ? f : 0
        }

        @inline(__always)
        func value(_ w: UnsafeMutablePointer<Double>) -> Double {
            let a = w[below]
            if meanOfTwo { return (w[below + 1] + a) / 2 }
            return fraction > 0 ? a + (w[below + 1] - a) * fraction : a
        }
    }

    /// The first index in w[0 ..< m] (ascending, +∞ after it up to the power of two above `width`) whose element is
    /// not less than `value`: the count of elements below it, by binary lifting — steps of 64, 32, …, 1, each taken
    /// when the element it reaches is below `value`. Written out step by step, not as a loop: the comparisons of a
    /// sliding window are unpredictable, and LLVM turns such a select inside a loop into a branch (mispredicted
    /// about every other step: most of the rolling quantiles' time); out of a loop it stays a conditional move.
    @inline(__always)
    private static func lowerBound(_ w: UnsafeMutablePointer<Double>, _ m: Int, _ value: Double, lift: Int) -> Int {
        guard lift <= 64 else {
            var base = 0, n = m
            while n > 1 {
                let half = n / 2
                base = w[base &+ half] < value ? base &+ half : base
                n &-= half
            }
            return m > 0 && w[base] < value ? base &+ 1 : base
        }
        var p = 0
        if lift >= 64 { p &+= w[p &+ 63] < value ? 64 : 0 }
        if lift >= 32 { p &+= w[p &+ 31] < value ? 32 : 0 }
        if lift >= 16 { p &+= w[p &+ 15] < value ? 16 : 0 }
        if lift >= 8 { p &+= w[p &+ 7] < value ? 8 : 0 }
        if lift >= 4 { p &+= w[p &+ 3] < value ? 4 : 0 }
        if lift >= 2 { p &+= w[p &+ 1] < value ? 2 : 0 }
        p &+= w[p] < value ? 1 : 0
        return p
    }

    /// Inserts `value` (the window growing at the start of the series), sliding it down from the end.
    private static func insert(_ w: UnsafeMutablePointer<Double>, _ m: inout Int, _ value: Double) {
        var k = m
        while w[k - 1] > value {
            w[k] = w[k - 1]
            k -= 1
        }
        w[k] = value
        m += 1
        w[m] = .infinity
    }

    /// Removes `value` (in the window; the window shrinking at the end of the series).
    private static func remove(_ w: UnsafeMutablePointer<Double>, _ m: inout Int, _ value: Double, lift: Int) {
        // The first element not less than `value` is the value itself.
        var k = lowerBound(w, m, value, lift: lift)
        while k < m - 1 {
            w[k] = w[k + 1]
            k += 1
        }
        m -= 1
        w[m] = .infinity
    }

    /// Removes `old` (in the window) and inserts `new`: the new value slides from the old one's place towards its
    /// own, moving the values between them by one (the sentinels end the slide at either end).
    @inline(__always)
    private static func replace(_ w: UnsafeMutablePointer<Double>, _ m: Int, old: Double, new: Double, lift: Int) {
        var k = lowerBound(w, m, old, lift: lift)
        if new > old {
            // w[k + 1 ...] are at least old: those below new move down one.
            while w[k &+ 1] < new {
                w[k] = w[k &+ 1]
                k &+= 1
            }
        } else {
            // w[..< k] are at most old: those above new move up one.
            while w[k &- 1] > new {
                w[k] = w[k &- 1]
                k &-= 1
            }
        }
        w[k] = new
    }
}
