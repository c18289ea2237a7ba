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
        for y in profiles where y.count > w {
            variances.reserveCapacity(variances.count + (y.count - w) / step + 1)
            y.withUnsafeBufferPointer { y in
                guard w >= 2 else {
                    var start = 0
                    while start < y.count - w {
                        variances.append(0)
                        start += step
                    }
                    return
                }
                // A window is two successive blocks of h = `step` values (and, for an odd w, the first value of the
                // block after): each block's moments are summed once and serve the two windows it belongs to.
                let h = Double(step), inverse = 1 / h
                var blocks: [Moments] = []
                blocks.reserveCapacity(y.count / step + 1)
                var start = 0
                while start + step <= y.count {
                    blocks.append(Moments(y, start: start, count: step, inverse: inverse))
                    start += step
                }
                // Two blocks merged (Chan, Golub and LeVeque): δ = ȳ_B − ȳ_A, Σ(y − ȳ)² = M_A + M_B + δ²·h/2,
                // Σ(x − x̄)(y − ȳ) = C_A + C_B + δ·h²/2; an odd window's last value e adds (e − ȳ)²·2h/(2h + 1) and
                // (e − ȳ)·h.
                let odd = w > 2 * step, last = 2 * h / (2 * h + 1)
                let perSxx = 1 / sxx, perW = 1 / Double(w)
                start = 0
                var b = 0
                while start < y.count - w {
                    let a = blocks[b], next = blocks[b + 1]
                    let delta = next.mean - a.mean
                    var m2 = a.m2 + next.m2 + delta * delta * (h / 2)
                    var c = a.c + next.c + delta * (h * h / 2)
                    if odd {
                        let e = y[start + 2 * step] - (a.mean + delta / 2)
                        m2 += e * e * last
                        c += e * h
                    }
                    variances.append(max(0, m2 - c * c * perSxx) * perW)
                    start += step
                    b += 1
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

    /// The moments of a block of h profile values at positions 0 … h − 1: their mean, Σ(y − ȳ)² and Σ(x − x̄)(y − ȳ).
    struct Moments {
        var mean: Double
        var m2: Double
        var c: Double

        /// y[start ..< start + h] in one pass, relative to its first value (a block spans a few of the profile's
        /// steps, so no large offset is left to cancel), four partial sums per quantity as SIMD lanes; `inverse` = 1/h.
        @inline(__always)
        init(_ y: UnsafeBufferPointer<Double>, start: Int, count h: Int, inverse: Double) {
            let y0 = y[start]
            var s = SIMD4<Double>.zero, ss = SIMD4<Double>.zero, sx = SIMD4<Double>.zero
            var x = SIMD4<Double>(0, 1, 2, 3)
            var k = 0
            while k + 4 <= h {
                let d = SIMD4(y[start + k], y[start + k + 1], y[start + k + 2], y[start + k + 3]) - y0
                s += d
                ss += d * d
                sx += x * d
                x += 4
                k += 4
            }
            var s1 = s.sum(), ss1 = ss.sum(), sx1 = sx.sum()
            while k < h {
                let d = y[start + k] - y0
                s1 += d
                ss1 += d * d
                sx1 += Double(k) * d
                k += 1
            }
            mean = y0 + s1 * inverse
            m2 = ss1 - s1 * s1 * inverse
            c = sx1 - Double(h - 1) / 2 * s1
        }
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
