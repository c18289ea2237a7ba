import Foundation

/// Statistics of a session (HKWorkout's statistics): everything its devices recorded in [start, end),
/// computed when it ends. Pure: the caller hands in the session's heartbeat series and quantity points.
///
/// - `beats`: beats in [start, end) over every series;
/// - heart rate: temporally weighted average, minimum and maximum of the heart-rate points (`QuantityStatistics`);
/// - HRV: `HRVMetrics` over the session's beats, never across a gap; each series starts a new segment, so no RR
///   interval spans two series (or two devices); nil with fewer than two such intervals;
/// - `activeEnergyKJ`: the cumulative sum of the energy points over the range;
/// - `gapSeconds`: the time in [start, end) not covered by an uninterrupted RR interval of any device (no series,
///   or the span before a `precededByGap` beat);
/// - `analysis`: `HRVAnalysis` of the same segments — artifacts classified and corrected (counts and share), then
///   the corrected NN intervals' time domain (with pNN20, mean and median NN), Poincaré SD1/SD2, DFA α1/α2 and the
///   frequency domain (Welch's and Lomb–Scargle's, LF/HF); nil with fewer than two intervals, in statistics
///   stored before it existed (their JSON has no `analysis` and still decodes), and in heartd's `session.stop`
///   reply (the daemon adds it to the stored statistics right after). `sdnnMs`, `rmssdMs` and
///   `pnn50Percent` stay those of the recorded RR chain.
public struct SessionStatistics: Codable, Sendable, Hashable {
    public var durationSeconds: TimeInterval
    public var beats: Int
    public var heartRateAverage: Double?
    public var heartRateMinimum: Double?
    public var heartRateMaximum: Double?
    public var sdnnMs: Double?
    public var rmssdMs: Double?
    public var pnn50Percent: Double?
    public var activeEnergyKJ: Double?
    public var gapSeconds: TimeInterval
    public var analysis: HRVAnalysis?

    public init(durationSeconds: TimeInterval, beats: Int, heartRateAverage: Double? = nil,
                heartRateMinimum: Double? = nil, heartRateMaximum: Double? = nil, sdnnMs: Double? = nil,
                rmssdMs: Double? = nil, pnn50Percent: Double? = nil, activeEnergyKJ: Double? = nil,
                gapSeconds: TimeInterval, analysis: HRVAnalysis? = nil) {
        self.durationSeconds = durationSeconds
        self.beats = beats
        self.heartRateAverage = heartRateAverage
        self.heartRateMinimum = heartRateMinimum
        self.heartRateMaximum = heartRateMaximum
        self.sdnnMs = sdnnMs
        self.rmssdMs = rmssdMs
        self.pnn50Percent = pnn50Percent
        self.activeEnergyKJ = activeEnergyKJ
        self.gapSeconds = gapSeconds
        self.analysis = analysis
    }

    /// Statistics over [start, end); without `analysis`, no `HRVAnalysis` (the rest costs a fraction of it: a
    /// session stop replies without it and adds it after). Throws `invalid-range` when `end < start`.
    public init(start: Date, end: Date, heartbeatSeries: [HeartbeatSeriesSample], heartRate: [QuantityPoint],
                energy: [QuantityPoint], analysis: Bool = true) throws(StatisticsError) {
        guard start.timeIntervalSinceReferenceDate.isFinite, end.timeIntervalSinceReferenceDate.isFinite, start <= end
        else { throw StatisticsError(.invalidRange, "session end \(end) is before its start \(start)") }
        let t0 = start.timeIntervalSinceReferenceDate, t1 = end.timeIntervalSinceReferenceDate
        var beatCount = 0
        var covered: [(Double, Double)] = []
        for series in heartbeatSeries {
            let base = series.start.timeIntervalSinceReferenceDate
            var previous: Double?
            for beat in series.beats {
                let t = base + beat.offset
                guard t >= t0, t < t1 else { previous = nil; continue }
                beatCount += 1
                if let p = previous, !beat.precededByGap { covered.append((p, t)) }
                previous = t
            }
        }
        let hr = try QuantityStatistics(points: heartRate, style: QuantityType.heartRate.aggregation, from: start, to: end)
        let kj = try QuantityStatistics(points: energy, style: QuantityType.activeEnergyBurned.aggregation, from: start, to: end)
        // Segments per series, so sorting the merged beats of two devices cannot pair beats across devices.
        let hrv = try? HRVMetrics(segments: Self.segments(heartbeatSeries, from: t0, to: t1))
        self.init(durationSeconds: t1 - t0, beats: beatCount, heartRateAverage: hr.average,
                  heartRateMinimum: hr.minimum, heartRateMaximum: hr.maximum, sdnnMs: hrv?.sdnnMs,
                  rmssdMs: hrv?.rmssdMs, pnn50Percent: hrv?.pnn50Percent,
                  activeEnergyKJ: kj.isEmpty ? nil : kj.sum,
                  gapSeconds: max(0, (t1 - t0) - Self.unionLength(covered)),
                  analysis: analysis ? Self.analysis(heartbeatSeries, from: start, to: end) : nil)
    }

    /// `HRVAnalysis` of the series' beats inside [from, to): each series on its own segments (its first beat in the
    /// range starts one), as `hrv` over a range and the report make them; nil with too few intervals.
    public static func analysis(_ series: [HeartbeatSeriesSample], from: Date, to: Date) -> HRVAnalysis? {
        var beats: [Beat] = []
        for s in series {
            let t0 = from.timeIntervalSince(s.start), t1 = to.timeIntervalSince(s.start)
            var first = true
            for b in s.beats where b.offset >= t0 && b.offset < t1 {
                beats.append(Beat(offset: b.offset, precededByGap: b.precededByGap || first))
                first = false
            }
        }
        return try? HRVAnalysis(beats: beats)
    }

    /// The RR segments of every series' beats inside [t0, t1), each series on its own.
    static func segments(_ series: [HeartbeatSeriesSample], from t0: Double, to t1: Double) -> [[Double]] {
        series.flatMap { s -> [[Double]] in
            let base = s.start.timeIntervalSinceReferenceDate
            var inside: [Beat] = []
            for beat in s.beats {
                let t = base + beat.offset
                if t >= t0 && t < t1 { inside.append(Beat(offset: beat.offset, precededByGap: beat.precededByGap || inside.isEmpty)) }
            }
            return HRVMetrics.segments(of: inside)
        }
    }

    /// The length of the union of `intervals` (start, end), in any order and overlapping.
    public static func unionLength(_ intervals: [(Double, Double)]) -> Double {
        var total = 0.0
        var current: (Double, Double)?
        for (a, b) in intervals.sorted(by: { $0.0 < $1.0 }) {
            if let c = current, a <= c.1 {
                current = (c.0, max(c.1, b))
            } else {
                if let c = current { total += c.1 - c.0 }
                current = (a, b)
            }
        }
        if let c = current { total += c.1 - c.0 }
        return total
    }
}
