/// The quadratic interpolating B-spline SciPy builds for `interp1d(kind="quadratic")` (`make_interp_spline` with
/// k = 2 and its default knots: x₀ and xₙ₋₁ three times, and the midpoints between successive sites except the
/// first and the last), which NeuroKit2 uses to resample RR intervals evenly. Outside [x₀, xₙ₋₁] it holds the end
/// values (`interp1d`'s fill_value = (y₀, yₙ₋₁) that NeuroKit2 passes).
struct QuadraticSpline: Sendable {
    let knots: [Double]
    let coefficients: [Double]
    let x: [Double]
    let y: [Double]

    /// Sites `x` strictly increasing, at least 3 of them.
    init(x: [Double], y: [Double]) {
        let n = x.count
        precondition(n >= 3 && y.count == n)
        self.x = x
        self.y = y
        var t = [x[0], x[0], x[0]]
        for i in 2 ..< n - 1 { t.append((x[i] + x[i - 1]) / 2) }
        t += [x[n - 1], x[n - 1], x[n - 1]]
        knots = t
        // Collocation: row i holds B_{l−2}, B_{l−1}, B_l at x_i (columns l − 2 … l), a band of width 5, stored flat:
        // band[5i + c − i + 2]. The sites ascend, so each one's knot span is found by walking on from the one before
        // (the span `span` would find).
        var band = [Double](repeating: 0, count: 5 * n)
        var c = [Double](repeating: 0, count: n)
        var rhs = y
        band.withUnsafeMutableBufferPointer { band in
            var l = 2
            for i in 0 ..< n {
                while l + 1 < n && t[l + 1] <= x[i] { l += 1 }
                let b = Self.basis(t, x[i], l)
                band[5 * i + l - 2 - i + 2] = b.0
                band[5 * i + l - 1 - i + 2] = b.1
                band[5 * i + l - i + 2] = b.2
            }
            // Gaussian elimination without pivoting: B-spline collocation matrices are totally positive (de Boor).
            rhs.withUnsafeMutableBufferPointer { rhs in
                for i in 0 ..< n {
                    let pivot = band[5 * i + 2]
                    for r in i + 1 ..< min(n, i + 3) {
                        let factor = band[5 * r + i - r + 2] / pivot
                        guard factor != 0 else { continue }
                        for col in i ..< min(n, i + 3) { band[5 * r + col - r + 2] -= factor * band[5 * i + col - i + 2] }
                        rhs[r] -= factor * rhs[i]
                    }
                }
                c.withUnsafeMutableBufferPointer { c in
                    for i in stride(from: n - 1, through: 0, by: -1) {
                        var s = rhs[i]
                        for col in i + 1 ..< min(n, i + 3) { s -= band[5 * i + col - i + 2] * c[col] }
                        c[i] = s / band[5 * i + 2]
                    }
                }
            }
        }
        coefficients = c
    }

    /// The spline at `v`; the end values outside the sites.
    func callAsFunction(_ v: Double) -> Double {
        let n = x.count
        if v < x[0] { return y[0] }
        if v > x[n - 1] { return y[n - 1] }
        return value(v, span: Self.span(knots, v, n))
    }

    /// The spline at `count` evenly spaced points from `start` by `step` (ascending): the same values as calling
    /// it at each, with the knot span found by walking forward from the previous point's instead of a search.
    func values(from start: Double, step: Double, count: Int) -> [Double] {
        let n = x.count
        var out = [Double](repeating: 0, count: count)
        var l = 2
        for i in 0 ..< count {
            let v = start + Double(i) * step
            if v < x[0] { out[i] = y[0]; continue }
            if v > x[n - 1] { out[i] = y[n - 1]; continue }
            // The largest l < n with t[l] ≤ v, as `span` finds it (knots ascend, v ascends).
            while l + 1 < n && knots[l + 1] <= v { l += 1 }
            out[i] = value(v, span: l)
        }
        return out
    }

    @inline(__always)
    private func value(_ v: Double, span l: Int) -> Double {
        let b = Self.basis(knots, v, l)
        return b.0 * coefficients[l - 2] + b.1 * coefficients[l - 1] + b.2 * coefficients[l]
    }

    /// The knot span l (2 ≤ l ≤ n − 1) with t[l] ≤ v < t[l + 1]; the last span for v = xₙ₋₁.
    static func span(_ t: [Double], _ v: Double, _ n: Int) -> Int {
        var low = 2, high = n // the largest l < n with t[l] ≤ v
        while high - low > 1 {
            let mid = (low + high) / 2
            if t[mid] <= v { low = mid } else { high = mid }
        }
        return low
    }

    /// The three non-zero quadratic B-splines at v in span l (Cox–de Boor).
    @inline(__always)
    static func basis(_ t: [Double], _ v: Double, _ l: Int) -> (Double, Double, Double) {
        let left1 = v - t[l], left2 = v - t[l - 1]
        let right1 = t[l + 1] - v, right2 = t[l + 2] - v
        // Degree 1.
        let s1 = 1 / (right1 + left1)
        let a0 = right1 * s1, a1 = left1 * s1
        // Degree 2.
        let d0 = 1 / (t[l + 1] - t[l - 1]), d1 = 1 / (t[l + 2] - t[l])
        let b0 = right1 * a0 * d0
        let b1 = left2 * a0 * d0 + right2 * a1 * d1
        let b2 = left1 * a1 * d1
        return (b0, b1, b2)
    }
}
