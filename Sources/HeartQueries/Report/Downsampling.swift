/// How the report keeps large inputs small: a 24-hour session has ~86 400 heart-rate points and ~100 000 RR
/// intervals, far more than the ~900 pixel columns of a plot.
///
/// - Line plots (heart rate, tachogram) keep, per pixel column, the minimum and the maximum of each contiguous
///   stretch (in their time order), so spikes and dips stay visible; stretches are reduced one by one, so a gap
///   stays a break in the line.
/// - The Poincaré plot draws each pair while there are at most `maxPairDots`; beyond that a density grid of
///   `densityCell`-pixel cells, each drawn once with an opacity from its count.
public struct Downsampling: Sendable, Hashable {
    /// Off: every point and pair is drawn (the benchmark's baseline).
    public var enabled: Bool
    public var maxPairDots: Int
    public var densityCell: Double

    public init(enabled: Bool = true, maxPairDots: Int = 4000, densityCell: Double = 3) {
        self.enabled = enabled
        self.maxPairDots = maxPairDots
        self.densityCell = densityCell
    }

    public static let none = Downsampling(enabled: false)

    /// `points` (time, value) of one stretch, sorted by time, reduced to the first-occurring minimum and maximum per
    /// column of `columnWidth` seconds from `t0`. Unchanged when off or when there are at most two per column.
    func minMaxPerColumn(_ points: [(Double, Double)], from t0: Double, columnWidth: Double) -> [(Double, Double)] {
        guard enabled, columnWidth > 0, points.count > 2 else { return points }
        var result: [(Double, Double)] = []
        var column = Int.min
        var lo = (0.0, 0.0), hi = (0.0, 0.0), n = 0
        func flush() {
            guard n > 0 else { return }
            if n == 1 || lo == hi {
                result.append(lo)
            } else if lo.0 <= hi.0 {
                result += [lo, hi]
            } else {
                result += [hi, lo]
            }
        }
        for p in points {
            let c = Int(((p.0 - t0) / columnWidth).rounded(.down))
            if c != column {
                flush()
                column = c
                lo = p
                hi = p
                n = 1
            } else {
                if p.1 < lo.1 { lo = p }
                if p.1 > hi.1 { hi = p }
                n += 1
            }
        }
        flush()
        return result
    }
}
