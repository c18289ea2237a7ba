/// Artifact classification and correction of one gap-free segment's beat times, as NeuroKit2 0.3's
/// `signal_fixpeaks(method="kubios", iterative=True)` does it (Lipponen & Tarvainen 2019, Kubios's automatic
/// correction): extra beats are removed, a missed beat is inserted halfway between its neighbours, and an
/// ectopic, long or short beat is moved halfway between its neighbours (times truncated to whole ticks, as
/// NeuroKit2 truncates to whole samples). Detection and correction repeat while the number of artifacts found
/// drops. The input beats are not changed: this is a computed view.
public struct RRArtifactCorrection: Sendable, Hashable {
    /// The class of each interval of the input (interval k ends at input beat k + 1), from the first pass.
    public var classes: [RRArtifactClass]
    /// Corrected beat times in ticks.
    public var peaks: [Int]
    /// Corrections applied over all passes: beats removed, inserted or moved.
    public var corrected: Int
    /// Detection passes whose artifacts were corrected.
    public var passes: Int

    /// Classifies and corrects `peaks` (beat times in ticks, ascending) at `ticksPerSecond`.
    public init(peaks input: [Int], ticksPerSecond: Double = 1024) {
        self.init(peaks: input, ticksPerSecond: ticksPerSecond, incremental: true)
    }

    /// `incremental`: each pass after the first recomputes only the rolling windows around the beats the pass
    /// before changed (`RRArtifactWindows`); false recomputes every pass whole (the same result: for the tests).
    init(peaks input: [Int], ticksPerSecond: Double, incremental: Bool) {
        var pass = RRArtifactPass(peaks: input, ticksPerSecond: ticksPerSecond)
        classes = Array(pass.classes.dropFirst())
        var current = input
        var corrections = Self.correct(pass, &current)
        var count = pass.total
        var passes = pass.total > 0 ? 1 : 0
        while count > 0 {
            let next = RRArtifactPass(
                peaks: current, ticksPerSecond: ticksPerSecond, reusing: incremental ? pass.windows : nil)
            if next.total >= count { break }
            count = next.total
            pass = next
            corrections += Self.correct(pass, &current)
            passes += 1
        }
        peaks = current
        corrected = corrections
        self.passes = passes
    }

    /// The corrected intervals in ms.
    public func intervalsMs(ticksPerSecond: Double = 1024) -> [Double] {
        guard peaks.count >= 2 else { return [] }
        return (1 ..< peaks.count).map { Double(peaks[$0] - peaks[$0 - 1]) / ticksPerSecond * 1000 }
    }

    /// NeuroKit2's `_correct_artifacts`: applies one pass to `peaks`, returning the number of beats changed.
    static func correct(_ pass: RRArtifactPass, _ peaks: inout [Int]) -> Int {
        var changed = 0
        var missed = pass.missed, ectopic = pass.ectopic, longShort = pass.longShort
        if !pass.extra.isEmpty {
            // The beats at the (distinct, sorted) extra indices are dropped: one walk, no hashing.
            let removed = sortedUnique(pass.extra)
            var out: [Int] = []
            out.reserveCapacity(peaks.count)
            var r = 0
            for (k, p) in peaks.enumerated() {
                if r < removed.count && removed[r] == k {
                    r += 1
                    continue
                }
                out.append(p)
            }
            peaks = out
            changed += removed.count
            missed = shift(missed, after: pass.extra, by: -1)
            ectopic = shift(ectopic, after: pass.extra, by: -1)
            longShort = shift(longShort, after: pass.extra, by: -1)
        }
        if !missed.isEmpty {
            let valid = missed.filter { $0 > 1 && $0 < peaks.count }
            // A beat halfway before each (distinct) missed index k, from the times before any insertion.
            let at = sortedUnique(valid)
            var out: [Int] = []
            out.reserveCapacity(peaks.count + at.count)
            var a = 0
            for (k, p) in peaks.enumerated() {
                if a < at.count && at[a] == k {
                    out.append(peaks[k - 1] + (peaks[k] - peaks[k - 1]) / 2)
                    a += 1
                }
                out.append(p)
            }
            peaks = out
            changed += valid.count
            ectopic = shift(ectopic, after: missed, by: 1)
            longShort = shift(longShort, after: missed, by: 1)
        }
        changed += realign(ectopic, &peaks)
        changed += realign(longShort, &peaks)
        return changed
    }

    /// NeuroKit2's `_correct_misaligned`: each beat k (1 < k < count − 1) moves halfway between its neighbours
    /// (all from the positions before this step), then the times are sorted.
    static func realign(_ indices: [Int], _ peaks: inout [Int]) -> Int {
        let valid = indices.filter { $0 > 1 && $0 < peaks.count - 1 }
        guard !valid.isEmpty else { return 0 }
        let moved = valid.map { peaks[$0 - 1] + (peaks[$0 + 1] - peaks[$0 - 1]) / 2 }
        for (k, p) in zip(valid, moved) { peaks[k] = p }
        if peaks.indices.dropFirst().contains(where: { peaks[$0] < peaks[$0 - 1] }) { peaks.sort() }
        return valid.count
    }

    /// The distinct values of `indices`, ascending.
    static func sortedUnique(_ indices: [Int]) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(indices.count)
        for k in indices.sorted() where out.last != k { out.append(k) }
        return out
    }

    /// NeuroKit2's `_update_indices`: for every source s, each index u > s moves by `delta`; sorted, unique.
    static func shift(_ indices: [Int], after sources: [Int], by delta: Int) -> [Int] {
        guard !indices.isEmpty else { return indices }
        var u = indices
        for s in sources { u = u.map { $0 > s ? $0 + delta : $0 } }
        return sortedUnique(u)
    }
}
