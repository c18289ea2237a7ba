import HealthModel
import HeartStore

/// `HRVMetrics` over a range, fed one segment at a time, so `hrv` over months holds running sums instead of every RR
/// interval (a year is ~41 M). The same definitions as `HRVMetrics(segments:)`, the same segments
/// (`HRVMetrics.segments(of:)` of each series on its own), in one pass: the variance behind SDNN from sums of the
/// intervals shifted by the first one (RR stays within a few hundred ms of it, so no precision is lost to
/// cancellation); the tests hold it to `HRVMetrics(segments:)`.
struct HRVAccumulator: Sendable {
    private(set) var count = 0
    private var shift: Double?
    private var shiftedSum = 0.0, shiftedSquares = 0.0, rateSum = 0.0
    private var squaredDifferences = 0.0, differences = 0, over50 = 0

    /// One uninterrupted run of RR intervals (ms, positive and finite: as `HRVMetrics.segments(of:)` makes them).
    mutating func add(segment: [Double]) {
        var previous: Double?
        for rr in segment {
            add(rr: rr, previous: previous)
            previous = rr
        }
    }

    /// One RR interval (ms, positive and finite) and the one before it in its run (nil for a run's first): the
    /// interval, and their successive difference.
    mutating func add(rr: Double, previous: Double?) {
        let k = shift ?? rr
        shift = k
        count += 1
        shiftedSum += rr - k
        shiftedSquares += (rr - k) * (rr - k)
        rateSum += 60_000 / rr
        if let p = previous {
            let d = rr - p
            squaredDifferences += d * d
            differences += 1
            if abs(d) > 50 { over50 += 1 }
        }
    }

    /// A heartbeat series' beats, each series its own segments (no RR spans two series).
    mutating func add(beats: [Beat]) {
        for segment in HRVMetrics.segments(of: beats) { add(segment: segment) }
    }

    /// Sums kept elsewhere (the store's `hrv_hourly`), re-shifted to this accumulator's shift.
    mutating func merge(_ h: HeartbeatHourSums) {
        guard h.count > 0 else { return }
        let k = shift ?? h.shift
        shift = k
        let n = Double(h.count), delta = h.shift - k
        shiftedSum += h.shiftedSum + n * delta
        shiftedSquares += h.shiftedSquares + 2 * delta * h.shiftedSum + n * delta * delta
        rateSum += h.rateSum
        count += h.count
        squaredDifferences += h.squaredDifferences
        differences += h.differences
        over50 += h.over50
    }

    /// The metrics so far. Throws `too-few-intervals` with fewer than 2 intervals, as `HRVMetrics` does.
    func metrics() throws(HRVError) -> HRVMetrics {
        guard count >= 2, shift != nil else { throw HRVError(.tooFewIntervals, "\(count) RR interval(s); SDNN needs at least 2") }
        let n = Double(count)
        let squaredDeviations = max(0, shiftedSquares - shiftedSum * shiftedSum / n)
        return HRVMetrics(
            count: count,
            sdnnMs: (squaredDeviations / (n - 1)).squareRoot(),
            rmssdMs: differences > 0 ? (squaredDifferences / Double(differences)).squareRoot() : nil,
            pnn50Percent: differences > 0 ? Double(over50) / Double(differences) * 100 : nil,
            meanHeartRateBpm: rateSum / n,
            differenceCount: differences)
    }
}
