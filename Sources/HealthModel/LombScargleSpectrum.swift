import Foundation

/// The generalised (floating-mean) Lomb–Scargle periodogram of unevenly sampled values (Zechmeister & Kürster 2009)
/// as astropy's `LombScargle(t, y, normalization="psd")` computes it with its defaults (`center_data`, `fit_mean`,
/// no uncertainties) — the call NeuroKit2's `signal_psd(method="lomb")` makes —, scaled to a one-sided density in
/// signal units² / Hz: S(f) = 2 · P(f) · Δt̄, Δt̄ the mean spacing of the sample times. On evenly spaced samples that
/// is SciPy's one-sided periodogram density, so a band's integral is the variance in the band (ms² for NN intervals);
/// astropy's (and NeuroKit2's) P is in signal units² and its integral over Hz has no such meaning.
///
/// Evaluated directly at f_k = k · step (k = 1 … count), O(N · count): each sample's phasor e^{2πi f_k t} is advanced
/// from one frequency to the next by one complex multiplication (a trigonometric recurrence: no sine or cosine in the
/// loop), four samples at a time in SIMD lanes. The sums at 2ωt that the floating mean needs are those at ωt of the
/// bin at twice the frequency where there is one (the lower half of the bins), so only the upper half sums squared
/// phasors. Nothing is resampled.
struct LombScargleSpectrum: Sendable {
    /// f_k = k · step, k = 1 … count (Hz).
    var frequencies: [Double]
    /// Power density per frequency (signal units² / Hz).
    var density: [Double]

    /// `times` in seconds, increasing, at least 3 of them; `values` as many.
    init(times: [Double], values: [Double], step: Double, count: Int) {
        let n = times.count
        frequencies = (0 ..< max(count, 0)).map { Double($0 + 1) * step }
        density = [Double](repeating: 0, count: max(count, 0))
        guard n >= 3, count > 0, let first = times.first, let last = times.last, last > first else { return }
        let mean = values.reduce(0, +) / Double(n)
        let lanes = (n + 3) / 4, padding = 4 * lanes - n
        // Padding lanes sit at t = 0 with value 0: their phasor stays 1, adding `padding` to Σcos and Σcos 2ωt only.
        var y = [SIMD4<Double>](repeating: .zero, count: lanes)
        var rotationRe = [SIMD4<Double>](repeating: .one, count: lanes)
        var rotationIm = [SIMD4<Double>](repeating: .zero, count: lanes)
        for j in 0 ..< n {
            let angle = 2 * Double.pi * step * (times[j] - first)
            y[j / 4][j % 4] = values[j] - mean
            rotationRe[j / 4][j % 4] = cos(angle)
            rotationIm[j / 4][j % 4] = sin(angle)
        }
        var re = rotationRe, im = rotationIm // the phasors at f_1
        let w = 1 / Double(n), pad = Double(padding)
        let scale = 0.5 * Double(n) * 2 * (last - first) / Double(n - 1)
        // Per bin: Σy·cos, Σy·sin, Σcos, Σsin of ωt, and of 2ωt where 2f_k is past the last bin (below it, Σcos 2ωt
        // and Σsin 2ωt at f_k are Σcos and Σsin at f_2k, summed anyway).
        var sums = [Sums](repeating: Sums(), count: count)
        y.withUnsafeBufferPointer { y in
            rotationRe.withUnsafeBufferPointer { ra in
                rotationIm.withUnsafeBufferPointer { rb in
                    re.withUnsafeMutableBufferPointer { re in
                        im.withUnsafeMutableBufferPointer { im in
                            for k in 0 ..< count {
                                let doubled = 2 * (k + 1) > count
                                var yc = SIMD4<Double>.zero, ys = SIMD4<Double>.zero
                                var c = SIMD4<Double>.zero, s = SIMD4<Double>.zero
                                var c2 = SIMD4<Double>.zero, s2 = SIMD4<Double>.zero
                                for l in 0 ..< lanes {
                                    let a = re[l], b = im[l], v = y[l]
                                    yc += v * a
                                    ys += v * b
                                    c += a
                                    s += b
                                    if doubled {
                                        c2 += a * a - b * b
                                        s2 += a * b
                                    }
                                    let rotA = ra[l], rotB = rb[l]
                                    re[l] = a * rotA - b * rotB
                                    im[l] = a * rotB + b * rotA
                                }
                                sums[k] = Sums(yc: yc.sum() * w, ys: ys.sum() * w, c: (c.sum() - pad) * w, s: s.sum() * w,
                                               c2: (c2.sum() - pad) * w, s2: 2 * s2.sum() * w)
                            }
                        }
                    }
                }
            }
        }
        for k in 0 ..< count {
            let f2 = 2 * (k + 1) - 1 // the bin of 2f_k
            let c2 = f2 < count ? sums[f2].c : sums[k].c2, s2 = f2 < count ? sums[f2].s : sums[k].s2
            density[k] = scale * Self.power(ch: sums[k].yc, sh: sums[k].ys, c: sums[k].c, s: sums[k].s, c2: c2, s2: s2)
        }
    }

    /// One bin's weighted sums (weights 1/N).
    struct Sums {
        var yc = 0.0, ys = 0.0, c = 0.0, s = 0.0, c2 = 0.0, s2 = 0.0
    }

    /// YC²/CC + YS²/SS of astropy's `lombscargle_fast` from the weighted sums (weights 1/N) of y·cos ωt, y·sin ωt,
    /// cos ωt, sin ωt, cos 2ωt and sin 2ωt, with the time shift τ of the floating-mean periodogram.
    static func power(ch: Double, sh: Double, c: Double, s: Double, c2: Double, s2: Double) -> Double {
        let num = s2 - 2 * s * c, den = c2 - (c * c - s * s)
        // tan 2ωτ = num / den; astropy takes 2ωτ in (−π/2, π/2): cos 2ωτ ≥ 0.
        let h = (num * num + den * den).squareRoot()
        let s2w = h > 0 ? (den < 0 ? -num : num) / h : 0
        let c2w = h > 0 ? abs(den) / h : 1
        let cw = (0.5 * (1 + c2w)).squareRoot()
        let sw = (s2w > 0 ? 1.0 : s2w < 0 ? -1.0 : 0.0) * (0.5 * max(0, 1 - c2w)).squareRoot()
        let yc = ch * cw + sh * sw, ys = sh * cw - ch * sw
        let cc = 0.5 * (1 + c2 * c2w + s2 * s2w) - (c * cw + s * sw) * (c * cw + s * sw)
        let ss = 0.5 * (1 - c2 * c2w - s2 * s2w) - (s * cw - c * sw) * (s * cw - c * sw)
        return (cc > 0 ? yc * yc / cc : 0) + (ss > 0 ? ys * ys / ss : 0)
    }
}
