import Foundation
import HealthModel
import HeartStore

/// The report of a long range (more than `threshold`): per-bucket trends instead of beat-level plots, which a person
/// cannot read over days (and which would hold every beat). Built while the store is read, one series at a time
/// (`ReportTrendBuilder`), so its memory is its buckets' running totals, whatever the range.
public struct ReportTrend: Sendable, Hashable {
    /// Ranges longer than this get the trend view; shorter ones keep the tachogram and Poincaré plot.
    public static let threshold: TimeInterval = 2 * 86400
    /// Ranges up to this get hourly plot buckets, longer ones daily.
    public static let hourlyUpTo: TimeInterval = 14 * 86400
    /// What "resting heart rate" means here, shown on the page.
    public static let restingDefinition = "resting heart rate: the day's lowest time-weighted average heart rate over one "
        + "clock hour (UTC) holding at least 30 minutes of heart-rate values"
    /// The plots' buckets (hours or days).
    public var buckets: [TrendBucket]
    /// Seconds per plot bucket.
    public var interval: TimeInterval
    /// One bucket per UTC day, with its resting heart rate: the table.
    public var days: [TrendBucket]
    /// First and last beat or heart-rate value inside the range: the span that has data (nil: none).
    public var dataStart: Date?
    public var dataEnd: Date?
}

/// Builds a `ReportTrend` and the range's `SessionStatistics` from streamed heart-rate points, energy points and
/// heartbeat series (any device, any order of devices; each device's series in start order), or, for whole UTC
/// hours, from the store's hourly roll-ups: heart-rate totals (`add(hour:totals:)`) and HRV sums
/// (`add(hour:sums:)`, for the beats in `rolledUpBeats`, whose series are still read for beat counts and gaps).
struct ReportTrendBuilder {
    let t0: Double, t1: Double
    var plot: TrendGrid
    var days: TrendGrid
    var hours: QuantityStatisticsBuilder
    var heartRate: QuantityStatisticsBuilder
    var energy: QuantityStatisticsBuilder
    var hrv = HRVAccumulator()
    var beats = 0
    var covered = CoveredTime()
    var dataStart = Double.infinity, dataEnd = -Double.infinity
    /// The hours [lower, upper) (reference-date seconds) whose beats' HRV came from `add(hour:sums:)`.
    var rolledUpBeats: (lower: Double, upper: Double)?

    init(from: Date, to: Date) throws(StatisticsError) {
        t0 = from.timeIntervalSinceReferenceDate
        t1 = to.timeIntervalSinceReferenceDate
        let midnight = Calendar.utc.startOfDay(for: from)
        let interval: TimeInterval = to.timeIntervalSince(from) <= ReportTrend.hourlyUpTo ? 3600 : 86400
        plot = try TrendGrid(from: from, to: to, anchor: midnight, interval: interval)
        days = try TrendGrid(from: from, to: to, anchor: midnight, interval: 86400)
        hours = try QuantityStatisticsBuilder(style: QuantityType.heartRate.aggregation, anchor: midnight, interval: 3600,
                                              from: from, to: to)
        heartRate = try .single(style: QuantityType.heartRate.aggregation, from: from, to: to)
        energy = try .single(style: QuantityType.activeEnergyBurned.aggregation, from: from, to: to)
    }

    mutating func add(heartRate p: QuantityPoint) {
        plot.heartRate.add(p)
        days.heartRate.add(p)
        hours.add(p)
        heartRate.add(p)
        span(heartRate: p)
    }

    /// Widens the span with data by a heart-rate point (starting inside the range), without counting it: for the
    /// points of a rolled-up hour, read again for the first and last such hour only.
    mutating func span(heartRate p: QuantityPoint) {
        let s = p.start.timeIntervalSinceReferenceDate
        if s >= t0, s < t1 { dataStart = min(dataStart, s); dataEnd = max(dataEnd, max(s, p.end.timeIntervalSinceReferenceDate)) }
    }

    /// One sample's heart-rate totals of the whole UTC hour starting at `hour`, from `heart_rate_hourly`.
    mutating func add(hour: Date, totals: BucketTotals) {
        let h = hour.timeIntervalSinceReferenceDate
        plot.merge(totals, hour: h)
        days.merge(totals, hour: h)
        hours.merge(totals, intoBucket: Int(((h - hours.anchor.timeIntervalSinceReferenceDate) / 3600).rounded(.down)))
        heartRate.merge(totals, intoBucket: 0)
    }

    /// One series' HRV sums of the UTC hour starting at `hour` (inside `rolledUpBeats`), from `hrv_hourly`.
    mutating func add(hour: Date, sums: HeartbeatHourSums) {
        let h = hour.timeIntervalSinceReferenceDate
        plot.merge(sums, hour: h)
        days.merge(sums, hour: h)
        hrv.merge(sums)
    }

    mutating func add(energy p: QuantityPoint) { energy.add(p) }

    /// A series' beats inside the range, in runs as `SessionStatistics` makes them: each series on its own, a new run
    /// at a `precededByGap` beat and at the first beat inside the range. Beats in `rolledUpBeats` are counted and
    /// their gaps measured, their intervals only carried to the next difference.
    mutating func add(series s: HeartbeatSeriesSample) {
        let base = s.start.timeIntervalSinceReferenceDate
        let rolled = rolledUpBeats ?? (0, 0)
        var previous: (offset: Double, t: Double)?
        var previousRR: Double?
        for beat in s.beats {
            let t = base + beat.offset
            guard t >= t0, t < t1 else {
                previous = nil
                continue
            }
            beats += 1
            dataStart = min(dataStart, t)
            dataEnd = max(dataEnd, t)
            var rr: Double?
            if let p = previous, !beat.precededByGap {
                covered.add(p.t, t)
                let ms = (beat.offset - p.offset) * 1000
                if ms.isFinite, ms > 0 { rr = ms }
            }
            let rolledUp = t >= rolled.lower && t < rolled.upper
            if let rr, !rolledUp { hrv.add(rr: rr, previous: previousRR) }
            previousRR = rr
            plot.beat(at: t, rr: rr, rolledUp: rolledUp)
            days.beat(at: t, rr: rr, rolledUp: rolledUp)
            previous = (beat.offset, t)
        }
        plot.flush()
        days.flush()
    }

    /// The trend and the range's statistics; time with gaps counts only within the span that has data.
    func finish() -> (ReportTrend, SessionStatistics) {
        let hourly = hours.collection().buckets
        var dayBuckets = days.buckets()
        for k in dayBuckets.indices {
            let day = dayBuckets[k]
            dayBuckets[k].restingHeartRate = hourly.filter { $0.start >= day.start && $0.start < day.end && $0.duration >= 1800 }
                .compactMap(\.average).min()
        }
        let hasData = dataStart <= dataEnd
        let trend = ReportTrend(buckets: plot.buckets(), interval: plot.interval, days: dayBuckets,
                                dataStart: hasData ? Date(timeIntervalSinceReferenceDate: dataStart) : nil,
                                dataEnd: hasData ? Date(timeIntervalSinceReferenceDate: dataEnd) : nil)
        let hr = heartRate.statistics(), kj = energy.statistics()
        let metrics = try? hrv.metrics()
        let statistics = SessionStatistics(
            durationSeconds: t1 - t0, beats: beats, heartRateAverage: hr.average, heartRateMinimum: hr.minimum,
            heartRateMaximum: hr.maximum, sdnnMs: metrics?.sdnnMs, rmssdMs: metrics?.rmssdMs,
            pnn50Percent: metrics?.pnn50Percent, activeEnergyKJ: kj.isEmpty ? nil : kj.sum,
            gapSeconds: hasData ? max(0, (dataEnd - dataStart) - covered.length) : 0)
        return (trend, statistics)
    }
}

/// The union of covered intervals: each interval extends the last one it starts inside, else is appended, and the
/// union is taken once, sorted, at `length` — so its size is the number of gaps, not of beats, and a second device's
/// intervals (arriving after the first device's, out of order) cost an append each, never an insert in the middle.
struct CoveredTime: Sendable {
    private var intervals: [(Double, Double)] = []

    mutating func add(_ a: Double, _ b: Double) {
        guard b > a else { return }
        if let last = intervals.last, a >= last.0, a <= last.1 {
            intervals[intervals.count - 1].1 = max(last.1, b)
        } else {
            intervals.append((a, b))
        }
    }

    var length: Double { SessionStatistics.unionLength(intervals) }
}
