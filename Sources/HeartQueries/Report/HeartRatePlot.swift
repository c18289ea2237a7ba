import HealthModel

/// Heart rate over time: per device, one polyline per contiguous stretch of heart-rate points, so a gap (a
/// disconnect, a dropout) is a visible break and never a line drawn across it.
enum HeartRatePlot {
    /// Points further apart than this (after the earlier one ends, or one notification interval after it starts
    /// when it has no duration) start a new stretch. Live points hold until the next notification, at most
    /// `series.gap_threshold_seconds`, so a dropout longer than that threshold shows as a break.
    static let breakSeconds = 0.5

    /// The stretches of `points` (sorted by start) overlapping [t0, t1), as (start time, bpm).
    static func stretches(_ points: [QuantityPoint], from t0: Double, to t1: Double) -> [[(Double, Double)]] {
        var result: [[(Double, Double)]] = []
        var current: [(Double, Double)] = []
        var coveredUntil = -Double.infinity
        for p in points {
            let s = p.start.timeIntervalSinceReferenceDate, e = p.end.timeIntervalSinceReferenceDate
            guard e > t0 || s >= t0, s < t1, p.value.isFinite else { continue }
            if s > coveredUntil + breakSeconds, !current.isEmpty {
                result.append(current)
                current = []
            }
            current.append((max(s, t0), p.value))
            coveredUntil = max(e, s + 1)
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    static func render(_ data: ReportData, downsampling: Downsampling) -> String {
        let all = data.devices.map { stretches($0.heartRate, from: data.start, to: data.end) }
        let values = all.flatMap { $0.flatMap { $0.map(\.1) } }
        guard let lo = values.min(), let hi = values.max() else {
            return Markup.text("p", ["class": "empty"], "No heart-rate values were stored in this range.")
        }
        let yTicks = Ticks.values(lo - 5, hi + 5)
        let frame = PlotFrame(x: (data.start, data.end), y: (yTicks.first ?? lo - 5, yTicks.last ?? hi + 5))
        let columnWidth = (data.end - data.start) / Double(frame.columns)
        var content = ""
        for (index, device) in data.devices.enumerated() where !all[index].isEmpty {
            var lines = ""
            for stretch in all[index] {
                var points = downsampling.minMaxPerColumn(stretch, from: data.start, columnWidth: columnWidth)
                if points.count == 1 { points.append(points[0]) } // one value: a dot (round caps)
                let list = points.map { Markup.number(frame.x($0.0)) + "," + Markup.number(frame.y($0.1)) }
                lines += Markup.element("polyline", ["class": "hr-stretch", "points": list.joined(separator: " ")])
            }
            content += Markup.element("g", ["class": "series c\(index % ReportPage.colours)", "data-device": device.address], lines)
        }
        return frame.svg(label: "Heart rate over time (bpm)", xTicks: Ticks.times(data.start, data.end),
                         yTicks: yTicks.map { ($0, Markup.number($0)) }, yTitle: "bpm", xTitle: Ticks.timeTitle(data.start, data.end), content: content)
    }
}
