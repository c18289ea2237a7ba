import HealthModel

/// An RR interval placed in time: `t` is the time of the beat that ends it (seconds since the reference date).
struct TimedRR: Sendable, Hashable {
    var t: Double
    var ms: Double
}

/// The RR intervals of heartbeat series inside [t0, t1), in segments exactly as `SessionStatistics` and
/// `HRVMetrics.segments(of:)` make them: each series on its own, a new segment at every `precededByGap` beat (and
/// at the first beat inside the range), so no interval, successive difference or Poincaré pair spans a gap, two
/// series or two devices.
struct RRSegments: Sendable {
    var segments: [[TimedRR]] = []
    /// Times of the beats stored with `precededByGap` inside the range: the tachogram's gap markers.
    var gapTimes: [Double] = []

    init(_ series: [HeartbeatSeriesSample], from t0: Double, to t1: Double) {
        for s in series {
            let base = s.start.timeIntervalSinceReferenceDate
            var previous: Double?  // offset of the previous beat inside the range
            var current: [TimedRR] = []
            for beat in s.beats {
                let t = base + beat.offset
                guard t >= t0, t < t1 else { continue }
                if beat.precededByGap { gapTimes.append(t) }
                defer { previous = beat.offset }
                // The same interval as HRVMetrics.segments(of:): offset difference × 1000.
                let rr = previous.map { (beat.offset - $0) * 1000 }
                guard let rr, !beat.precededByGap, rr.isFinite, rr > 0 else {
                    if !current.isEmpty { segments.append(current) }
                    current = []
                    continue
                }
                current.append(TimedRR(t: t, ms: rr))
            }
            if !current.isEmpty { segments.append(current) }
        }
    }

    /// The intervals the artifact classification flags (`RRArtifactCorrection`'s first pass, each segment on its own
    /// beat times in ticks of 1/1024 s): time, RR and class.
    func artifacts() -> [(t: Double, ms: Double, kind: RRArtifactClass)] {
        var result: [(t: Double, ms: Double, kind: RRArtifactClass)] = []
        for segment in segments where segment.count >= 2 {
            var peaks = [0]
            for rr in segment { peaks.append(peaks[peaks.count - 1] + Int((rr.ms * 1.024).rounded())) }
            let classes = RRArtifactCorrection(peaks: peaks).classes
            for (rr, kind) in zip(segment, classes) where kind != .normal { result.append((rr.t, rr.ms, kind)) }
        }
        return result
    }

    var intervalCount: Int { segments.reduce(0) { $0 + $1.count } }

    /// Poincaré pairs (RR[n], RR[n+1]) in ms, taken inside segments only.
    var pairs: [(Double, Double)] {
        var result: [(Double, Double)] = []
        result.reserveCapacity(intervalCount)
        for segment in segments where segment.count > 1 {
            for i in 1..<segment.count { result.append((segment[i - 1].ms, segment[i].ms)) }
        }
        return result
    }
}
