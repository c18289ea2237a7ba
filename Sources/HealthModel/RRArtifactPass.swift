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
        let rawDrrs = drrs
        let th1 = if let previous, let match {
            RRArtifactWindows.update(
                drrs, old: previous.drrs, oldResult: previous.th1, match: match,
                before: half, after: Self.thresholdWindow - 1 - half, compute: Self.threshold)
        } else { Self.threshold(drrs) }
        for i in 0 ..< n { drrs[i] = th1[i] != 0 ? drrs[i] / th1[i] : .nan }
        // The subspaces S12 and S22 over dRR padded by reflection (numpy's "reflect": no edge repeat).
        let pad = { (k: Int) -> Double in drrs[Self.reflect(k, n)] }
        var s12 = [Double](repeating: 0, count: n), s22 = [Double](repeating: 0, count: n)
        for d in 0 ..< n {
            if drrs[d] > 0 { s12[d] = Self.npMax(pad(d - 1), pad(d + 1)) }
            else if drrs[d] < 0 { s12[d] = Self.npMin(pad(d - 1), pad(d + 1)) }
            if drrs[d] >= 0 { s22[d] = Self.npMin(pad(d + 1), pad(d + 2)) }
            else if drrs[d] < 0 { s22[d] = Self.npMax(pad(d + 1), pad(d + 2)) }
        }
        let median = { (x: [Double]) in RollingQuantile.centred(x, width: Self.medianWindow, quantiles: [0.5])[0] }
        let medrr = if let previous, let match {
            RRArtifactWindows.update(
                rr, old: previous.rr, oldResult: previous.medrr, match: match,
                before: medianHalf, after: Self.medianWindow - 1 - medianHalf, compute: median)
        } else { median(rr) }
        var mrrs = (0 ..< n).map { rr[$0] - medrr[$0] }
        for i in 0 ..< n where mrrs[i] < 0 { mrrs[i] *= 2 }
        let th2 = if let previous, let match {
            RRArtifactWindows.update(
                mrrs, old: previous.mrrs, oldResult: previous.th2, match: match,
                before: half, after: Self.thresholdWindow - 1 - half, compute: Self.threshold)
        } else { Self.threshold(mrrs) }
        windows = RRArtifactWindows(peaks: peaks, rr: rr, medrr: medrr, drrs: rawDrrs, th1: th1, mrrs: mrrs, th2: th2)
        for i in 0 ..< n { mrrs[i] = th2[i] != 0 ? mrrs[i] / th2[i] : .nan }

        // The decision flow of Lipponen & Tarvainen's Figure 1, with NeuroKit2's index stepping.
        var i = 0
        while i < n - 2 {
            if abs(drrs[i]) <= 1 { i += 1; continue }
            let eq1 = drrs[i] > 1 && s12[i] < -Self.c1 * drrs[i] - Self.c2
            let eq2 = drrs[i] < -1 && s12[i] > -Self.c1 * drrs[i] + Self.c2
            if eq1 || eq2 {
                ectopic.append(i)
                classes[i] = .ectopic
                i += 1
                continue
            }
            if !(abs(drrs[i]) > 1 || abs(mrrs[i]) > 3) { i += 1; continue }
            var candidates = [i]
            if abs(drrs[i + 1]) < abs(drrs[i + 2]) { candidates.append(i + 1) }
            for j in candidates {
                let eq3 = drrs[j] > 1 && s22[j] < -1
                let eq4 = abs(mrrs[j]) > 3
                let eq5 = drrs[j] < -1 && s22[j] > 1
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
                    classes[j] = eq3 ? .long : eq5 ? .short : (mrrs[j] > 0 ? .long : .short)
                }
            }
        }
    }

    /// α × (Q3 − Q1) / 2 of |x| over the centred 91-beat window (NeuroKit2's `_compute_threshold`).
    static func threshold(_ x: [Double]) -> [Double] {
        let q = RollingQuantile.centred(x.map { abs($0) }, width: thresholdWindow, quantiles: [0.25, 0.75])
        return (0 ..< x.count).map { alpha * ((q[1][$0] - q[0][$0]) / 2) }
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
