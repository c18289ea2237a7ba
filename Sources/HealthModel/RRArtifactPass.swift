/// One pass of the Lipponen & Tarvainen (2019) artifact detection over the beat times of one gap-free segment,
/// a line-by-line port of NeuroKit2 0.3's `_find_artifacts` (`signal_fixpeaks(method="kubios")`), with its
/// constants: c1 = 0.13, c2 = 0.17, α = 5.2, a 91-beat window for the quartile thresholds and an 11-beat median.
///
/// Indices are beat indices: index i stands for the interval ending at beat i (index 0 has no interval; like
/// NeuroKit2, its RR is set to the mean of the others so that the filters see a realistic value).
struct RRArtifactPass: Sendable {
    var ectopic: [Int] = []
    var missed: [Int] = []
    var extra: [Int] = []
    /// Long or short beats, in NeuroKit2's single `longshort` list.
    var longShort: [Int] = []
    /// The class of each beat index (`normal` where none applies).
    var classes: [RRArtifactClass]
    /// The rolling-window quantities of this pass, for the next pass to reuse.
    var windows: RRArtifactWindows?

    var total: Int { ectopic.count + missed.count + extra.count + longShort.count }

    static let c1 = 0.13, c2 = 0.17, alpha = 5.2, thresholdWindow = 91, medianWindow = 11

    /// Detects artifacts among `peaks` (beat times in ticks, ascending) at `ticksPerSecond`; with `previous` (the
    /// windows of the pass before, at the same `ticksPerSecond`), only the rolling windows whose values changed are
    /// recomputed (the same result, bit for bit).
    init(peaks: [Int], ticksPerSecond: Double, reusing previous: RRArtifactWindows? = nil) {
        let n = peaks.count
        classes = Array(repeating: .normal, count: n)
        guard n >= 3 else { return }
        var rr = [Double](repeating: 0, count: n)
        for i in 1 ..< n { rr[i] = Double(peaks[i] - peaks[i - 1]) / ticksPerSecond }
        rr[0] = Self.mean(rr[1...])
        var drrs = [Double](repeating: 0, count: n)
        for i in 1 ..< n { drrs[i] = rr[i] - rr[i - 1] }
        drrs[0] = Self.mean(drrs[1...])
        let match = previous.map { RRArtifactWindows.match(peaks, to: $0.peaks) }
        let half = Self.thresholdWindow / 2, medianHalf = Self.medianWindow / 2
        let th1 = if let previous, let match {
            RRArtifactWindows.update(
                drrs, old: previous.drrs, oldResult: previous.th1, match: match,
                before: half, after: Self.thresholdWindow - 1 - half, compute: Self.threshold)
        } else { Self.threshold(drrs) }
        let median = { (x: [Double]) in RollingQuantile.centred(x, width: Self.medianWindow, quantiles: [0.5])[0] }
        let medrr = if let previous, let match {
            RRArtifactWindows.update(
                rr, old: previous.rr, oldResult: previous.medrr, match: match,
                before: medianHalf, after: Self.medianWindow - 1 - medianHalf, compute: median)
        } else { median(rr) }
        var mrrs = [Double](repeating: 0, count: n)
        for i in 0 ..< n {
            let d = rr[i] - medrr[i]
            mrrs[i] = d < 0 ? d * 2 : d
        }
        let th2 = if let previous, let match {
            RRArtifactWindows.update(
                mrrs, old: previous.mrrs, oldResult: previous.th2, match: match,
                before: half, after: Self.thresholdWindow - 1 - half, compute: Self.threshold)
        } else { Self.threshold(mrrs) }
        windows = RRArtifactWindows(peaks: peaks, rr: rr, medrr: medrr, drrs: drrs, th1: th1, mrrs: mrrs, th2: th2)
        let scaled = Scaled(drrs: drrs, th1: th1, mrrs: mrrs, th2: th2)

        // The decision flow of Lipponen & Tarvainen's Figure 1, with NeuroKit2's index stepping; the scaled dRR and
        // mRR and the subspaces S12 and S22 are computed where the flow reads them.
        var i = 0
        while i < n - 2 {
            let di = scaled.drrs(i)
            if abs(di) <= 1 { i += 1; continue }
            let s12 = scaled.s12(i)
            let eq1 = di > 1 && s12 < -Self.c1 * di - Self.c2
            let eq2 = di < -1 && s12 > -Self.c1 * di + Self.c2
            if eq1 || eq2 {
                ectopic.append(i)
                classes[i] = .ectopic
                i += 1
                continue
            }
            if !(abs(di) > 1 || abs(scaled.mrrs(i)) > 3) { i += 1; continue }
            var candidates = [i]
            if abs(scaled.drrs(i + 1)) < abs(scaled.drrs(i + 2)) { candidates.append(i + 1) }
            for j in candidates {
                let dj = scaled.drrs(j), mj = scaled.mrrs(j), s22 = scaled.s22(j)
                let eq3 = dj > 1 && s22 < -1
                let eq4 = abs(mj) > 3
                let eq5 = dj < -1 && s22 > 1
                i += 1
                guard eq3 || eq4 || eq5 else { continue }
                let eq6 = abs(rr[j] / 2 - medrr[j]) < th2[j]
                let eq7 = j + 1 < n && abs(rr[j] + rr[j + 1] - medrr[j]) < th2[j]
                if eq5 && eq7 {
                    extra.append(j)
                    classes[j] = .extra
                } else if eq3 && eq6 {
                    missed.append(j)
                    classes[j] = .missed
                } else {
                    longShort.append(j)
                    classes[j] = eq3 ? .long : eq5 ? .short : (mj > 0 ? .long : .short)
                }
            }
        }
    }

    /// dRR and mRR scaled by their thresholds (NaN where a threshold is 0), and the subspaces S12 and S22 over the
    /// scaled dRR padded by reflection (numpy's "reflect": no edge repeat), each value computed when read.
    struct Scaled {
        let raw: [Double], th1: [Double], rawM: [Double], th2: [Double]

        init(drrs: [Double], th1: [Double], mrrs: [Double], th2: [Double]) {
            raw = drrs
            self.th1 = th1
            rawM = mrrs
            self.th2 = th2
        }

        @inline(__always) func drrs(_ i: Int) -> Double { th1[i] != 0 ? raw[i] / th1[i] : .nan }
        @inline(__always) func mrrs(_ i: Int) -> Double { th2[i] != 0 ? rawM[i] / th2[i] : .nan }
        @inline(__always) func pad(_ k: Int) -> Double { drrs(RRArtifactPass.reflect(k, raw.count)) }

        func s12(_ d: Int) -> Double {
            let v = drrs(d)
            if v > 0 { return RRArtifactPass.npMax(pad(d - 1), pad(d + 1)) }
            if v < 0 { return RRArtifactPass.npMin(pad(d - 1), pad(d + 1)) }
            return 0
        }

        func s22(_ d: Int) -> Double {
            let v = drrs(d)
            if v >= 0 { return RRArtifactPass.npMin(pad(d + 1), pad(d + 2)) }
            if v < 0 { return RRArtifactPass.npMax(pad(d + 1), pad(d + 2)) }
            return 0
        }
    }

    /// α × (Q3 − Q1) / 2 of |x| over the centred 91-beat window (NeuroKit2's `_compute_threshold`).
    static func threshold(_ x: [Double]) -> [Double] {
        RollingQuantile.centred(x.map { abs($0) }, width: thresholdWindow, quantiles: 0.25, 0.75) { q1, q3 in
            alpha * ((q3 - q1) / 2)
        }
    }

    static func mean(_ x: ArraySlice<Double>) -> Double {
        x.isEmpty ? 0 : x.reduce(0, +) / Double(x.count)
    }

    /// numpy's reflect padding index for position k of an n-element array (n ≥ 2).
    static func reflect(_ k: Int, _ n: Int) -> Int {
        var k = k
        while k < 0 || k >= n { k = k < 0 ? -k : 2 * (n - 1) - k }
        return k
    }

    /// `np.max` / `np.min` of two values: NaN when either is NaN.
    static func npMax(_ a: Double, _ b: Double) -> Double { a.isNaN || b.isNaN ? .nan : Swift.max(a, b) }
    static func npMin(_ a: Double, _ b: Double) -> Double { a.isNaN || b.isNaN ? .nan : Swift.min(a, b) }
}
