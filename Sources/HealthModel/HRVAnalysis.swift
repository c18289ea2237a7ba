import Foundation

/// HRV as research tools compute it: every RR interval of every gap-free segment classified (Lipponen &
/// Tarvainen 2019), artifacts corrected by interpolation (`RRArtifactCorrection`), then time-domain, frequency-domain
/// (`HRVFrequencyDomain`: Welch's and Lomb–Scargle's), Poincaré and DFA measures of the corrected NN intervals, with the artifact summary beside them. The recorded beats
/// are never changed: this is a computed view. No NN interval, successive difference or DFA window spans a gap.
///
/// Minimum lengths: classification needs a segment of at least 2 intervals (shorter ones stay `normal`);
/// the time domain 2 intervals in all; Poincaré 2 successive pairs; DFA α1 a segment of more than 16
/// intervals and α2 one of more than 64 (NeuroKit2 needs the same to have a window at every scale).
public struct HRVAnalysis: Codable, Sendable, Hashable {
    public var segments: Int
    public var artifacts: HRVArtifactSummary
    /// Of the corrected NN intervals.
    public var time: HRVTimeDomain
    public var poincare: PoincareMetrics?
    /// DFA α1 over 4…16 beats and α2 over 16…64 (`DetrendedFluctuation`).
    public var dfaAlpha1: Double?
    public var dfaAlpha2: Double?
    /// Welch's spectrum of the resampled NN series (`HRVFrequencyDomain`); nil without a segment of 120 s.
    public var frequency: HRVFrequencyDomain?
    /// The Lomb–Scargle periodogram of the NN intervals at their own times, in 5-minute windows
    /// (`HRVFrequencyDomain(lombScargleSegments:)`); nil without a segment of 120 s. Absent from older JSON.
    public var lombScargle: HRVFrequencyDomain?

    /// Beat times in ticks of `1/ticksPerSecond` s, one array per gap-free segment.
    public init(peakSegments: [[Int]], ticksPerSecond: Double = 1024) throws(HRVError) {
        var counts: [RRArtifactClass: Int] = [:]
        var intervals = 0, corrected = 0
        var nn: [[Double]] = []
        var timed: [(times: [Double], intervalsMs: [Double])] = []
        for peaks in peakSegments where peaks.count >= 2 {
            let correction = RRArtifactCorrection(peaks: peaks, ticksPerSecond: ticksPerSecond)
            // Counted per class (a few passes over small values), not looked up in the dictionary per interval.
            for c in RRArtifactClass.allCases {
                let k = correction.classes.count { $0 == c }
                if k > 0 { counts[c, default: 0] += k }
            }
            intervals += peaks.count - 1
            corrected += correction.corrected
            let segment = correction.intervalsMs(ticksPerSecond: ticksPerSecond)
            if !segment.isEmpty {
                nn.append(segment)
                timed.append((correction.peaks.dropFirst().map { Double($0) / ticksPerSecond }, segment))
            }
        }
        segments = nn.count
        artifacts = HRVArtifactSummary(intervals: intervals, classes: counts, corrected: corrected)
        time = try HRVTimeDomain(segments: nn)
        poincare = PoincareMetrics(segments: nn)
        dfaAlpha1 = DetrendedFluctuation.alpha(segments: nn, scales: DetrendedFluctuation.shortScales)
        dfaAlpha2 = DetrendedFluctuation.alpha(segments: nn, scales: DetrendedFluctuation.longScales)
        frequency = HRVFrequencyDomain(segments: timed)
        lombScargle = HRVFrequencyDomain(lombScargleSegments: timed)
    }

    /// A heartbeat series' beats (offsets in seconds on the 1/1024 s grid), split by `HRVMetrics.beatSegments`.
    public init(beats: [Beat]) throws(HRVError) {
        let peaks = HRVMetrics.beatSegments(of: beats).map { range in
            beats[range].map { Self.ticks($0.offset) }
        }
        try self.init(peakSegments: peaks)
    }

    /// One run of RR intervals in ms (an RR file), placed on the 1/1024 s grid the daemon stores beats on:
    /// beat k at round(Σ RR · 1.024) ticks.
    public init(rrIntervalsMs: [Double]) throws(HRVError) {
        var peaks = [0]
        var sum = 0.0
        for rr in rrIntervalsMs {
            guard rr.isFinite, rr > 0 else {
                throw HRVError(.invalidInterval, "RR interval \(rr) ms is not a positive finite number")
            }
            sum += rr
            peaks.append(Int((sum * 1.024).rounded()))
        }
        try self.init(peakSegments: [peaks])
    }

    /// An offset in seconds as whole ticks of 1/1024 s.
    public static func ticks(_ offset: TimeInterval) -> Int { Int((offset * 1024).rounded()) }

    enum CodingKeys: String, CodingKey {
        case segments, artifacts, time, poincare, dfaAlpha1 = "dfa_alpha1", dfaAlpha2 = "dfa_alpha2", frequency, lombScargle = "lomb_scargle"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(segments, forKey: .segments)
        try c.encode(artifacts, forKey: .artifacts)
        try c.encode(time, forKey: .time)
        try c.encode(poincare, forKey: .poincare)
        try c.encode(dfaAlpha1, forKey: .dfaAlpha1)
        try c.encode(dfaAlpha2, forKey: .dfaAlpha2)
        try c.encode(frequency, forKey: .frequency)
        try c.encode(lombScargle, forKey: .lombScargle)
    }
}
