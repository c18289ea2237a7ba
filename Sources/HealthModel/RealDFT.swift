import Foundation

/// |X_k|² of a real signal's DFT for k = 0 … n/2: a radix-2 FFT when n is a power of two, else the direct sum
/// (used only for short segments).
struct RealDFT: Sendable {
    let length: Int
    private let cosines: [Double]
    private let sines: [Double]

    init(length n: Int) {
        length = n
        cosines = (0 ..< n).map { cos(2 * Double.pi * Double($0) / Double(n)) }
        sines = (0 ..< n).map { sin(2 * Double.pi * Double($0) / Double(n)) }
    }

    func powerSpectrum(_ x: [Double]) -> [Double] {
        let n = length, bins = n / 2 + 1
        if n > 1 && n & (n - 1) == 0 {
            var re = x, im = [Double](repeating: 0, count: n)
            var power = [Double](repeating: 0, count: bins)
            addPowerSpectrum(re: &re, im: &im, to: &power)
            return power
        }
        return (0 ..< bins).map { k in
            var a = 0.0, b = 0.0, idx = 0
            for j in 0 ..< n {
                a += x[j] * cosines[idx]
                b -= x[j] * sines[idx]
                idx += k
                if idx >= n { idx -= n }
            }
            return a * a + b * b
        }
    }

    /// Adds |X_k|² (k = 0 … n/2) of the signal in `re` to `sum` (n a power of two); `re` and `im` (zeros on entry)
    /// are overwritten: callers reuse them from frame to frame.
    func addPowerSpectrum(re: inout [Double], im: inout [Double], to sum: inout [Double]) {
        fft(&re, &im)
        re.withUnsafeBufferPointer { re in
            im.withUnsafeBufferPointer { im in
                sum.withUnsafeMutableBufferPointer { sum in
                    for k in 0 ..< length / 2 + 1 { sum[k] += re[k] * re[k] + im[k] * im[k] }
                }
            }
        }
    }

    /// Adds |A_k|² + |B_k|² (k = 0 … n/2) of two real signals, A in `re` and B in `im`, from one complex FFT
    /// (n a power of two): with Z = FFT(A + iB), A_k = (Z_k + conj Z_{n−k}) / 2 and B_k = (Z_k − conj Z_{n−k}) / 2i,
    /// so |A_k|² + |B_k|² = (|Z_k|² + |Z_{n−k}|²) / 2. `re` and `im` are overwritten.
    func addPowerSpectra(re: inout [Double], im: inout [Double], to sum: inout [Double]) {
        fft(&re, &im)
        let n = length
        re.withUnsafeBufferPointer { re in
            im.withUnsafeBufferPointer { im in
                sum.withUnsafeMutableBufferPointer { sum in
                    for k in 0 ..< n / 2 + 1 {
                        let j = (n - k) & (n - 1)
                        sum[k] += (re[k] * re[k] + im[k] * im[k] + re[j] * re[j] + im[j] * im[j]) / 2
                    }
                }
            }
        }
    }

    /// In-place iterative radix-2 FFT (n a power of two).
    private func fft(_ re: inout [Double], _ im: inout [Double]) {
        let n = length
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                cosines.withUnsafeBufferPointer { cosines in
                    sines.withUnsafeBufferPointer { sines in
                        var j = 0
                        for i in 1 ..< n {
                            var bit = n >> 1
                            while j & bit != 0 { j ^= bit; bit >>= 1 }
                            j |= bit
                            if i < j { re.swapAt(i, j); im.swapAt(i, j) }
                        }
                        // The first two stages together, as radix-4 butterflies: their twiddles are 1 and −i.
                        var size = 2
                        if n >= 4 {
                            for a in Swift.stride(from: 0, to: n, by: 4) {
                                let r0 = re[a] + re[a + 1], i0 = im[a] + im[a + 1]
                                let r1 = re[a] - re[a + 1], i1 = im[a] - im[a + 1]
                                let r2 = re[a + 2] + re[a + 3], i2 = im[a + 2] + im[a + 3]
                                let r3 = re[a + 2] - re[a + 3], i3 = im[a + 2] - im[a + 3]
                                re[a] = r0 + r2
                                im[a] = i0 + i2
                                re[a + 2] = r0 - r2
                                im[a + 2] = i0 - i2
                                // (r3 + i·i3) · (−i) = i3 − i·r3
                                re[a + 1] = r1 + i3
                                im[a + 1] = i1 - r3
                                re[a + 3] = r1 - i3
                                im[a + 3] = i1 + r3
                            }
                            size = 8
                        }
                        while size <= n {
                            let half = size / 2, stride = n / size
                            for start in Swift.stride(from: 0, to: n, by: size) {
                                for k in 0 ..< half {
                                    let wr = cosines[k * stride], wi = -sines[k * stride]
                                    let a = start + k, b = a + half
                                    let tr = re[b] * wr - im[b] * wi, ti = re[b] * wi + im[b] * wr
                                    re[b] = re[a] - tr
                                    im[b] = im[a] - ti
                                    re[a] += tr
                                    im[a] += ti
                                }
                            }
                            size *= 2
                        }
                    }
                }
            }
        }
    }
}
