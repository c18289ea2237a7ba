import Foundation
import HealthModel

/// The plots and table of a long report (`ReportTrend`): per hour or day the heart-rate band (minimum to maximum)
/// with its time-weighted average and each day's resting heart rate, then RMSSD and SDNN. A bucket without values is
/// a break in every line and band.
enum TrendPlot {
    /// Consecutive buckets for which `value` has a value: each run is drawn on its own.
    static func runs(_ buckets: [TrendBucket], _ value: (TrendBucket) -> Double?) -> [[(Double, Double)]] {
        var result: [[(Double, Double)]] = []
        var current: [(Double, Double)] = []
        for b in buckets {
            guard let v = value(b), v.isFinite else {
                if !current.isEmpty { result.append(current) }
                current = []
                continue
            }
            current.append((middle(b), v))
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    static func middle(_ b: TrendBucket) -> Double {
        (b.start.timeIntervalSinceReferenceDate + b.end.timeIntervalSinceReferenceDate) / 2
    }

    static func polyline(_ run: [(Double, Double)], _ frame: PlotFrame, _ cls: String) -> String {
        let points = (run.count == 1 ? [run[0], run[0]] : run).map { Markup.number(frame.x($0.0)) + "," + Markup.number(frame.y($0.1)) }
        return Markup.element("polyline", ["class": cls, "points": points.joined(separator: " ")])
    }

    static func heartRate(_ data: ReportData, _ trend: ReportTrend) -> String {
        let values = trend.buckets.flatMap { [$0.heartRate.minimum, $0.heartRate.maximum].compactMap { $0 } }
        guard let lo = values.min(), let hi = values.max() else {
            return Markup.text("p", ["class": "empty"], "No heart-rate values were stored in this range.")
        }
        let yTicks = Ticks.values(lo - 5, hi + 5)
        let frame = PlotFrame(x: (data.start, data.end), y: (yTicks.first ?? lo - 5, yTicks.last ?? hi + 5))
        var content = ""
        let bands = zip(runs(trend.buckets) { $0.heartRate.maximum }, runs(trend.buckets) { $0.heartRate.minimum })
        for (top, bottom) in bands {
            let outline = (top + bottom.reversed()).map { Markup.number(frame.x($0.0)) + "," + Markup.number(frame.y($0.1)) }
            content += Markup.element("polygon", ["class": "hr-band", "points": outline.joined(separator: " ")])
        }
        for run in runs(trend.buckets, { $0.heartRate.average }) { content += polyline(run, frame, "hr-average") }
        for day in trend.days {
            guard let r = day.restingHeartRate else { continue }
            content += Markup.element("circle", ["class": "resting", "cx": Markup.number(frame.x(middle(day))),
                                                 "cy": Markup.number(frame.y(r)), "r": "2.5"])
        }
        let unit = trend.interval >= 86400 ? "day" : "hour"
        return frame.svg(label: "Heart rate per \(unit) (bpm): minimum to maximum, average, resting per day",
                         xTicks: Ticks.times(data.start, data.end), yTicks: yTicks.map { ($0, Markup.number($0)) },
                         yTitle: "bpm", xTitle: Ticks.timeTitle(data.start, data.end), content: content)
    }

    static func hrv(_ data: ReportData, _ trend: ReportTrend) -> String {
        let values = trend.buckets.flatMap { [$0.hrv?.rmssdMs, $0.hrv?.sdnnMs].compactMap { $0 } }
        guard let hi = values.max() else {
            return Markup.text("p", ["class": "empty"], "Too few RR intervals in this range for HRV.")
        }
        let yTicks = Ticks.values(0, hi * 1.05)
        let frame = PlotFrame(x: (data.start, data.end), y: (0, yTicks.last ?? hi))
        var content = ""
        for run in runs(trend.buckets, { $0.hrv?.rmssdMs }) { content += polyline(run, frame, "hrv-line rmssd c0") }
        for run in runs(trend.buckets, { $0.hrv?.sdnnMs }) { content += polyline(run, frame, "hrv-line sdnn c1") }
        let unit = trend.interval >= 86400 ? "day" : "hour"
        return frame.svg(label: "HRV per \(unit) (ms): RMSSD and SDNN", xTicks: Ticks.times(data.start, data.end),
                         yTicks: yTicks.map { ($0, Markup.number($0)) }, yTitle: "ms",
                         xTitle: Ticks.timeTitle(data.start, data.end), content: content)
    }

    /// One row per UTC day with data.
    static func days(_ trend: ReportTrend) -> String {
        let rows = trend.days.filter { $0.beats > 0 || !$0.heartRate.isEmpty }.map { d -> [String] in
            [Ticks.day(d.start.timeIntervalSinceReferenceDate), String(d.beats),
             ReportTables.fixed(d.heartRate.minimum, "bpm"), ReportTables.fixed(d.heartRate.average, "bpm"),
             ReportTables.fixed(d.heartRate.maximum, "bpm"), ReportTables.fixed(d.restingHeartRate, "bpm"),
             ReportTables.fixed(d.hrv?.rmssdMs, "ms"), ReportTables.fixed(d.hrv?.sdnnMs, "ms")]
        }
        guard !rows.isEmpty else { return Markup.text("p", ["class": "empty"], "No day with data.") }
        return ReportTables.table(rows, header: ["Day (UTC)", "Beats", "HR min", "HR average", "HR max", "Resting HR",
                                                 "RMSSD", "SDNN"], numeric: nil, id: "days")
    }
}
