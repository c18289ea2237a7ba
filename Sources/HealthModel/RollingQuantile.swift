/// Centred rolling quantiles with pandas' conventions (`Series.rolling(w, center=True, min_periods=1)`):
/// the window of index i holds the values at i − ⌊w/2⌋ … i + (w − 1 − ⌊w/2⌋), cut at both ends of the series;
/// a quantile interpolates linearly between the order statistics at (m − 1)·q of the m values
/// (pandas' default `interpolation="linear"`; the median is q = 0.5). NaN values are not expected.
enum RollingQuantile {
    /// The centred rolling quantiles `qs` of `values` over windows of `width` values: one array per quantile.
    static func centred(_ values: [Double], width: Int, quantiles qs: [Double]) -> [[Double]] {
        let n = values.count
        var result = qs.map { _ in [Double](repeating: .nan, count: n) }
        guard n > 0, width > 0 else { return result }
        let before = width / 2, after = width - 1 - width / 2
        var sorted: [Double] = []
        sorted.reserveCapacity(width)
        var lo = 0, hi = 0 // window is values[lo ..< hi]
        for i in 0 ..< n {
            let newLo = max(0, i - before), newHi = min(n, i + after + 1)
            while hi < newHi {
                sorted.insert(values[hi], at: insertionIndex(sorted, values[hi]))
                hi += 1
            }
            while lo < newLo {
                let k = insertionIndex(sorted, values[lo])
                // insertionIndex finds the first element ≥ value; it is the value itself.
                sorted.remove(at: k)
                lo += 1
            }
            let m = sorted.count
            for (qi, q) in qs.enumerated() {
                let position = Double(m - 1) * q
                let below = Int(position.rounded(.down))
                let fraction = position - Double(below)
                let a = sorted[below]
                if q == 0.5, m % 2 == 0 {
                    result[qi][i] = (sorted[m / 2] + sorted[m / 2 - 1]) / 2 // pandas' median of an even count
                } else {
                    result[qi][i] = fraction > 0 && below + 1 < m ? a + (sorted[below + 1] - a) * fraction : a
                }
            }
        }
        return result
    }

    /// The first index whose element is not less than `value` in the ascending `sorted`.
    private static func insertionIndex(_ sorted: [Double], _ value: Double) -> Int {
        var low = 0, high = sorted.count
        while low < high {
            let mid = (low + high) / 2
            if sorted[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}
