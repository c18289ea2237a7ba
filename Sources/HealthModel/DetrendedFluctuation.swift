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

    /// The population variance of y[start ..< start + w] less its least-squares line: Syy − Sxy²/Sxx over w, with
    /// the window's mean removed first (two passes; the residuals' own mean is 0).
    @inline(__always)
    static func residualVariance(_ y: UnsafeBufferPointer<Double>, start: Int, width w: Int,
                                 xc: UnsafeBufferPointer<Double>, sxx: Double) -> Double {
        var ym = 0.0
        for k in 0 ..< w { ym += y[start + k] }
        ym /= Double(w)
        var sxy = 0.0, syy = 0.0
        for k in 0 ..< w {
            let d = y[start + k] - ym
            sxy += xc[k] * d
            syy += d * d
        }
        return max(0, syy - sxy * sxy / sxx) / Double(w)
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
