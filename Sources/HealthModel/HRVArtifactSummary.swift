/// What artifact classification found and what correction changed, reported beside every HRV figure.
///
/// The warning threshold is 5 % of intervals corrected: Kubios's user guide advises that corrected beats should
/// stay below about 5 % of all beats for reliable results, and the exercise DFA α1 literature discards windows
/// above 5 % artifacts (Rogers et al. 2021, Front. Physiol. 11:596567).
public struct HRVArtifactSummary: Codable, Sendable, Hashable {
    /// Share of corrected intervals above which HRV is flagged as unreliable, in percent.
    public static let warningThresholdPercent = 5.0

    /// Intervals of the recorded RR chain (all gap-free segments).
    public var intervals: Int
    /// Intervals of each class (first detection pass over the recorded chain); every class present, zeros too.
    public var classes: [String: Int]
    /// Beats removed, inserted or moved by the correction (all passes).
    public var corrected: Int
    /// `corrected` / `intervals` × 100 (0 without intervals).
    public var correctedPercent: Double
    /// Set when `correctedPercent` is above `warningThresholdPercent`.
    public var warning: String?

    public init(intervals: Int, classes: [RRArtifactClass: Int], corrected: Int) {
        self.intervals = intervals
        var named: [String: Int] = [:]
        for c in RRArtifactClass.allCases { named[c.rawValue] = classes[c] ?? 0 }
        self.classes = named
        self.corrected = corrected
        correctedPercent = intervals > 0 ? Double(corrected) / Double(intervals) * 100 : 0
        warning = correctedPercent > Self.warningThresholdPercent
            ? "\(corrected) of \(intervals) intervals corrected (above \(Int(Self.warningThresholdPercent)) %): HRV is unreliable"
            : nil
    }

    /// Intervals not classified `normal`.
    public var artifacts: Int { intervals - (classes[RRArtifactClass.normal.rawValue] ?? 0) }

    enum CodingKeys: String, CodingKey {
        case intervals, classes, corrected, correctedPercent = "corrected_pct", warning
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(intervals, forKey: .intervals)
        try c.encode(classes, forKey: .classes)
        try c.encode(corrected, forKey: .corrected)
        try c.encode(correctedPercent, forKey: .correctedPercent)
        try c.encode(warning, forKey: .warning)
    }
}
