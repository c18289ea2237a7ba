import Foundation

/// Welch's power spectral density as SciPy's `signal.welch` computes it for NeuroKit2's `signal_psd`: the signal
/// less its mean, Hann windows (periodic) of `segmentLength` samples overlapping by half, each zero-padded to
/// `fftLength`, one-sided density scaling (|X|² / (fs · Σw²), doubled except at 0 and Nyquist), the mean over
/// windows. Windows go through the FFT two at a time (`RealDFT.addPowerSpectra`).
struct WelchSpectrum: Sendable {
    /// Frequencies in Hz, from 0 in steps of fs / fftLength.
    var frequencies: [Double]
    /// Power density per frequency (signal units² / Hz).
    var density: [Double]
    var windows: Int

    init(_ signal: [Double], sampleRate fs: Double, segmentLength m: Int, fftLength nfft: Int) {
        let mean = signal.reduce(0, +) / Double(signal.count)
        let x = signal.map { $0 - mean }
        let window = (0 ..< m).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(m)) }
        let scale = 1 / (fs * window.reduce(0) { $0 + $1 * $1 })
        let bins = nfft / 2 + 1
        var sum = [Double](repeating: 0, count: bins)
        let step = m - m / 2
        var start = 0, count = 0
        let dft = RealDFT(length: nfft)
        let radix2 = nfft > 1 && nfft & (nfft - 1) == 0
        var re = [Double](repeating: 0, count: nfft), im = [Double](repeating: 0, count: nfft)
        while start + m <= x.count {
            if radix2 && start + step + m <= x.count {
                // Two windows in one complex FFT: this one as the real part, the next as the imaginary part.
                for k in 0 ..< nfft {
                    re[k] = k < m ? x[start + k] * window[k] : 0
                    im[k] = k < m ? x[start + step + k] * window[k] : 0
                }
                dft.addPowerSpectra(re: &re, im: &im, to: &sum)
                count += 2
                start += 2 * step
                continue
            }
            for k in 0 ..< nfft { re[k] = k < m ? x[start + k] * window[k] : 0 }
            if radix2 {
                for k in 0 ..< nfft { im[k] = 0 }
                dft.addPowerSpectrum(re: &re, im: &im, to: &sum)
            } else {
                let power = dft.powerSpectrum(re)
                for b in 0 ..< bins { sum[b] += power[b] }
            }
            count += 1
            start += step
        }
        windows = count
        frequencies = (0 ..< bins).map { Double($0) * fs / Double(nfft) }
        density = (0 ..< bins).map { b in
            let onesided = b == 0 || (nfft % 2 == 0 && b == bins - 1) ? 1.0 : 2.0
            return count > 0 ? sum[b] / Double(count) * scale * onesided : 0
        }
    }
}
