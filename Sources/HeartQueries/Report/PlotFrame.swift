import Foundation

/// The frame every report plot is drawn in: size, margins, the x and y scales and their axes (ticks with labels).
struct PlotFrame {
    var width = 960.0
    var height = 260.0
    var left = 56.0, right = 30.0, top = 12.0, bottom = 30.0
    let x: Scale
    let y: Scale

    init(x xDomain: (Double, Double), y yDomain: (Double, Double), width: Double = 960, height: Double = 260) {
        self.width = width
        self.height = height
        x = Scale(xDomain, to: (left, width - right))
        y = Scale(yDomain, to: (height - bottom, top))
    }

    /// Pixel columns of the plot area: the resolution downsampling keeps.
    var columns: Int { max(1, Int(width - left - right)) }

    /// The plot as an `<svg>` element: axes, then `content`; `label` names it for screen readers.
    func svg(label: String, xTicks: [(Double, String)], yTicks: [(Double, String)], yTitle: String,
             xTitle: String? = nil, content: String) -> String {
        var axes = ""
        for (value, text) in xTicks {
            let px = Markup.number(x(value))
            axes += Markup.element("line", ["class": "grid", "x1": px, "x2": px, "y1": Markup.number(top),
                                            "y2": Markup.number(height - bottom)])
            axes += Markup.text("text", ["class": "tick", "x": px, "y": Markup.number(height - bottom + 16),
                                         "text-anchor": "middle"], text)
        }
        for (value, text) in yTicks {
            let py = Markup.number(y(value))
            axes += Markup.element("line", ["class": "grid", "x1": Markup.number(left), "x2": Markup.number(width - right),
                                            "y1": py, "y2": py])
            axes += Markup.text("text", ["class": "tick", "x": Markup.number(left - 6), "y": py, "dy": "4",
                                         "text-anchor": "end"], text)
        }
        axes += Markup.text("text", ["class": "axis-title", "x": "12", "y": Markup.number(top + 10)], yTitle)
        if let xTitle {
            axes += Markup.text("text", ["class": "axis-title", "x": Markup.number(width - right), "y": Markup.number(height - 2),
                                         "text-anchor": "end"], xTitle)
        }
        axes += Markup.element("rect", ["class": "frame", "x": Markup.number(left), "y": Markup.number(top),
                                        "width": Markup.number(width - left - right),
                                        "height": Markup.number(height - top - bottom)])
        return Markup.element("svg", ["xmlns": "http://www.w3.org/2000/svg", "role": "img", "aria-label": label,
                                      "viewBox": "0 0 \(Markup.number(width)) \(Markup.number(height))",
                                      "width": Markup.number(width), "height": Markup.number(height)],
                              Markup.text("title", [:], label) + axes + content)
    }
}

/// Axis ticks: round values and UTC clock times.
enum Ticks {
    /// About `count` round values (1, 2 or 5 × 10ⁿ apart) from one at or below `lo` to one at or above `hi`, so
    /// the first and last make an axis that holds every value.
    static func values(_ lo: Double, _ hi: Double, count: Int = 5) -> [Double] {
        guard hi > lo, lo.isFinite, hi.isFinite else { return [lo, lo + 1] }
        let raw = (hi - lo) / Double(max(count, 1))
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
        let first = (lo / step).rounded(.down), last = (hi / step).rounded(.up)
        return stride(from: first, through: last, by: 1).map { $0 * step }
    }

    /// Time ticks for [t0, t1] (seconds since the reference date, labelled in UTC): clock times within a day, a
    /// tick at midnight labelled with its date (`YYYY-MM-DD`), and whole days beyond a few days, so a range of
    /// months reads as dates, never as a row of `00:00`.
    static func times(_ t0: Double, _ t1: Double, count: Int = 6) -> [(Double, String)] {
        let span = t1 - t0
        let steps: [Double] = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400]
        let step = steps.first { span / $0 <= Double(count) } ?? 86400 * ((span / 86400 / Double(count)).rounded(.up))
        var t = (t0 / step).rounded(.up) * step
        var result: [(Double, String)] = []
        while t <= t1 {
            let midnight = t.truncatingRemainder(dividingBy: 86400) == 0
            result.append((t, midnight && step >= 60 ? day(t) : clock(t, seconds: step < 60)))
            t += step
        }
        return result
    }

    /// The axis title under time ticks: the zone, and the day of `t0` when no tick says it.
    static func timeTitle(_ t0: Double, _ t1: Double) -> String {
        t1 - t0 <= 86400 ? "UTC, " + day(t0) : "UTC"
    }

    /// `YYYY-MM-DD` in UTC of a time since the reference date.
    static func day(_ t: Double) -> String {
        let c = Calendar.utc.dateComponents([.year, .month, .day], from: Date(timeIntervalSinceReferenceDate: t))
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(c.year ?? 0)-" + two(c.month ?? 0) + "-" + two(c.day ?? 0)
    }

    /// `HH:mm` (or `HH:mm:ss`) in UTC of a time since the reference date (2001-01-01, a midnight).
    static func clock(_ t: Double, seconds: Bool) -> String {
        let s = Int(t.rounded(.down)).quotientAndRemainder(dividingBy: 86400).remainder
        let daySeconds = s < 0 ? s + 86400 : s
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let hm = two(daySeconds / 3600) + ":" + two(daySeconds / 60 % 60)
        return seconds ? hm + ":" + two(daySeconds % 60) : hm
    }
}
