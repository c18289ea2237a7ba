import Foundation

/// Detrended fluctuation analysis (Peng et al. 1995) of RR intervals, as NeuroKit2 0.3's `fractal_dfa` computes
/// it for `hrv_nonlinear` (monofractal, q = 2, linear detrending, windows overlapping by half): the profile is
/// the cumulative sum of the intervals less their mean; at each scale w the windows start at 0, ⌊w/2⌋, 2⌊w/2⌋, …
/// while start < n − w; each window's fluctuation is the variance of its residual from a least-squares line;
/// windows whose variance is below 1e-8 of the scale's largest are dropped; F(w) = √(mean variance); α is the
/// least-squares slope of log₂ F(w) on log₂ w.
///
/// Segments: each gap-free segment has its own profile (its own mean); the windows of every segment are pooled
/// at each scale, and none spans a gap. For one segment this is NeuroKit2's definition.
public enum DetrendedFluctuation {
    /// The short-term exponent α1 over scales 4…16 beats (Peng 1995, Kubios; NeuroKit2's default is 4…11).
    public static let shortScales = Array(4 ... 16)
    /// The long-term exponent α2 over scales 16…64 beats.
    public static let longScales = Array(16 ... 64)

    /// α over `scales` of the segments' intervals; nil when some scale has no window in any segment
    /// (a segment needs more than `scales.max()` intervals) or no fluctuation.
    public static func alpha(segments: [[Double]], scales: [Int]) -> Double? {
        let profiles = segments.map(profile)
        var logScale: [Double] = [], logF: [Double] = []
        for w in scales {
            guard let f = fluctuation(profiles: profiles, scale: w), f > 0 else { return nil }
            logScale.append(log2(Double(w)))
            logF.append(log2(f))
        }
        return slope(x: logScale, y: logF)
    }

    /// α of one run of intervals.
    public static func alpha(_ intervals: [Double], scales: [Int]) -> Double? {
        alpha(segments: [intervals], scales: scales)
    }

    /// The cumulative sum of x − mean(x).
    static func profile(_ x: [Double]) -> [Double] {
        guard !x.isEmpty else { return [] }
        let mean = x.reduce(0, +) / Double(x.count)
        var sum = 0.0
        return x.map { sum += $0 - mean; return sum }
    }

    /// F(w) over the windows of all profiles, nil without a window.
    static func fluctuation(profiles: [[Double]], scale w: Int) -> Double? {
        var variances: [Double] = []
        let step = max(1, w / 2)
        let xm = Double(w - 1) / 2
        var sxx = 0.0
        for k in 0 ..< w { sxx += (Double(k) - xm) * (Double(k) - xm) }
        let centred = (0 ..< w).map { Double($0) - xm }
        for y in profiles where y.count > w {
            variances.reserveCapacity(variances.count + (y.count - w) / step + 1)
            y.withUnsafeBufferPointer { y in
                centred.withUnsafeBufferPointer { xc in
                    var start = 0
                    while start < y.count - w {
                        variances.append(residualVariance(y, start: start, width: w, xc: xc, sxx: sxx))
                        start += step
                    }
                }
            }
        }
        guard let top = variances.max() else { return nil }
        var sum = 0.0, n = 0
        for v in variances where v > 1e-8 * top {
            sum += v
            n += 1
        }
        return n > 0 ? (sum / Double(n)).squareRoot() : nil
    }

    /// The population variance of y[start ..< start + w] less its least-squares line: (Syy − Sxy²/Sxx) / w, in one
    /// pass over the window. The values are taken relative to the window's first (d = y − y₀: a profile's window
    /// spans a few of its steps, so no large offset is left to cancel), Syy = Σd² − (Σd)²/w, and Sxy = Σ(x − x̄)·d
    /// (Σ(x − x̄) = 0, so the offset drops out). Four partial sums per quantity, as SIMD lanes: the additions of
    /// one window no longer wait on each other.
    @inline(__always)
    static func residualVariance(_ y: UnsafeBufferPointer<Double>, start: Int, width w: Int,
                                 xc: UnsafeBufferPointer<Double>, sxx: Double) -> Double {
        let y0 = y[start]
        var s = SIMD4<Double>.zero, ss = SIMD4<Double>.zero, sxy = SIMD4<Double>.zero
        var k = 0
        while k + 4 <= w {
            let d = SIMD4(y[start + k], y[start + k + 1], y[start + k + 2], y[start + k + 3]) - y0
            s += d
            ss += d * d
            sxy += SIMD4(xc[k], xc[k + 1], xc[k + 2], xc[k + 3]) * d
            k += 4
        }
        var s1 = s.sum(), ss1 = ss.sum(), sxy1 = sxy.sum()
        while k < w {
            let d = y[start + k] - y0
            s1 += d
            ss1 += d * d
            sxy1 += xc[k] * d
            k += 1
        }
        let syy = ss1 - s1 * s1 / Double(w)
        return max(0, syy - sxy1 * sxy1 / sxx) / Double(w)
    }

    /// The least-squares slope of y on x.
    static func slope(x: [Double], y: [Double]) -> Double? {
        guard x.count >= 2 else { return nil }
        let mx = x.reduce(0, +) / Double(x.count), my = y.reduce(0, +) / Double(y.count)
        var sxy = 0.0, sxx = 0.0
        for (a, b) in zip(x, y) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
        }
        return sxx > 0 ? sxy / sxx : nil
    }
}
