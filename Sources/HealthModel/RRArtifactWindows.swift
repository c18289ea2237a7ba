/// The rolling-window quantities of one artifact detection pass (`RRArtifactPass`), kept so that the next pass
/// of the iterative correction recomputes only the windows whose values changed.
///
/// Every centred rolling value (the 11-beat median of RR, the 91-beat thresholds of |dRR| and |mRR|) is a pure
/// function of the values in its window (the window's order statistics), cut at the series' ends. A corrected
/// beat changes RR, dRR and mRR near it only, so most windows of the next pass hold exactly the values of a
/// window of this pass: those results are copied; the stretches around changed values (and both ends, whose
/// windows are cut, and index 0, whose value is a mean of all others) are recomputed on their own. The result is
/// bit for bit the full recomputation's.
struct RRArtifactWindows: Sendable {
    /// The beat times the quantities below belong to.
    var peaks: [Int]
    var rr: [Double]
    /// The 11-beat median of `rr`.
    var medrr: [Double]
    /// dRR before scaling: the input of `th1`.
    var drrs: [Double]
    var th1: [Double]
    /// mRR before scaling (negative values doubled): the input of `th2`.
    var mrrs: [Double]
    var th2: [Double]

    /// For each index of `peaks`, the index of the same beat time in `previous` (−1 where none): both are
    /// ascending, so one merge walk pairs the beats that no correction touched.
    static func match(_ peaks: [Int], to previous: [Int]) -> [Int] {
        var out = [Int](repeating: -1, count: peaks.count)
        var j = 0
        for i in peaks.indices {
            while j < previous.count && previous[j] < peaks[i] { j += 1 }
            if j < previous.count && previous[j] == peaks[i] {
                out[i] = j
                j += 1
            }
        }
        return out
    }

    /// `compute(values)` (a centred rolling function with `before` values before and `after` values after each
    /// index, cut at the ends) reusing `oldResult = compute(old)`: an index whose whole window is matched, in one
    /// unbroken run, to a window of `old` holding bit-identical values takes the old result; every other
    /// stretch is computed on a slice holding its windows.
    static func update(
        _ values: [Double], old: [Double], oldResult: [Double], match: [Int], before: Int, after: Int,
        compute: ([Double]) -> [Double]
    ) -> [Double] {
        let n = values.count
        guard n > before + after + 1, old.count == oldResult.count, !values.contains(where: \.isNaN) else {
            return compute(values)
        }
        // bad[i]: value i is not the old one, or its neighbour on the left is not the old one's neighbour.
        var badBefore = [Int](repeating: 0, count: n + 1) // prefix counts of bad indices
        for i in 0 ..< n {
            let m = match[i]
            var bad = m < 0 || values[i].bitPattern != old[m].bitPattern
            if !bad, i > 0, match[i - 1] != m - 1 { bad = true }
            if !bad, i + 1 < n, match[i + 1] != m + 1 { bad = true }
            badBefore[i + 1] = badBefore[i] + (bad ? 1 : 0)
        }
        // The stretches to recompute; when their slices (each with its windows' values on both sides) hold as
        // many values as the series, one computation of the whole costs less.
        var stretches: [Range<Int>] = []
        var sliced = 0
        var i = 0
        while i < n {
            guard dirty(i, n, before, after, badBefore) else {
                i += 1
                continue
            }
            var end = i + 1
            while end < n && dirty(end, n, before, after, badBefore) { end += 1 }
            stretches.append(i ..< end)
            sliced += min(n, end + after) - max(0, i - before)
            i = end
        }
        if sliced >= n { return compute(values) }
        var out = [Double](repeating: 0, count: n)
        var next = 0 // the first index not yet written
        for stretch in stretches {
            for k in next ..< stretch.lowerBound { out[k] = oldResult[match[k]] }
            let lo = max(0, stretch.lowerBound - before), hi = min(n, stretch.upperBound + after)
            let part = compute(Array(values[lo ..< hi]))
            for k in stretch { out[k] = part[k - lo] }
            next = stretch.upperBound
        }
        for k in next ..< n { out[k] = oldResult[match[k]] }
        return out
    }

    /// Whether index i's window is cut by an end of the series or holds a bad index.
    @inline(__always)
    private static func dirty(_ i: Int, _ n: Int, _ before: Int, _ after: Int, _ badBefore: [Int]) -> Bool {
        if i - before < 0 || i + after >= n { return true }
        return badBefore[i + after + 1] - badBefore[i - before] > 0
    }
}
