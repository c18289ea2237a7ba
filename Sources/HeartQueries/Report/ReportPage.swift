import Foundation
import HealthModel

/// The report as one self-contained HTML page: inline CSS and SVG, no script, no external resource, so it opens
/// offline in any browser. Pure: `ReportData` in, text out. Every text from the store (label, metadata, device
/// names) is escaped.
public enum ReportPage {
    static let colours = 4

    public static func render(_ data: ReportData, downsampling: Downsampling = Downsampling()) -> String {
        let segments = data.devices.map { RRSegments($0.series, from: data.start, to: data.end) }
        let title = data.session.map { "Session " + ($0.label ?? $0.uuid.uuidString) } ?? "Heart data report"
        var body = Markup.text("h1", [:], title)
        body += Markup.element("p", ["class": "scope"], Markup.escape(scopeLine(data)))
        body += Markup.text("h2", [:], "Statistics and HRV")
        body += ReportTables.statistics(data.statistics, gapsWithinData: data.session == nil)
        if let hrv = data.hrv {
            body += Markup.text("h2", [:], "HRV analysis (artifacts corrected)")
            body += ReportTables.analysis(hrv)
        }
        if let trend = data.trend {
            body += Markup.text("h2", [:], "Heart rate per " + (trend.interval >= 86400 ? "day" : "hour"))
            body += figure(TrendPlot.heartRate(data, trend), legend(data),
                           "The band runs from the lowest to the highest value, the line is the time-weighted average and "
                           + "the dots each day's \(ReportTrend.restingDefinition); every device together. A break is a "
                           + "bucket without values.")
            body += Markup.text("h2", [:], "HRV per " + (trend.interval >= 86400 ? "day" : "hour"))
            body += figure(TrendPlot.hrv(data, trend), "",
                           "RMSSD (blue) and SDNN (orange) of the RR intervals in each bucket, never across a gap or between "
                           + "series. Beat-level plots (tachogram, Poincaré) are drawn for ranges up to "
                           + "\(Int(ReportTrend.threshold / 86400)) days.")
            body += Markup.text("h2", [:], "Days")
            body += TrendPlot.days(trend)
        } else {
            body += Markup.text("h2", [:], "Heart rate")
            body += figure(HeartRatePlot.render(data, downsampling: downsampling), legend(data),
                           "Breaks in a line are gaps: no heart-rate value was stored there.")
            body += Markup.text("h2", [:], "RR tachogram")
            body += figure(TachogramPlot.render(data, segments: segments, downsampling: downsampling), legend(data),
                           "Dashed red lines mark beats stored after a gap (precededByGap); no line is drawn across one. "
                           + "Rings mark the intervals classified as artifacts (ectopic, long, short, missed, extra), which "
                           + "the HRV analysis corrects.")
            body += Markup.text("h2", [:], "Poincaré plot")
            body += figure(PoincarePlot.render(segments, downsampling: downsampling), "",
                           "Pairs of consecutive RR intervals of the same segment, never across a gap or between series.")
        }
        if let session = data.session { body += ReportTables.session(session) }
        body += Markup.text("h2", [:], "Devices")
        body += ReportTables.devices(data.devices)
        body += Markup.element("p", ["class": "footer"], Markup.escape(
            "Made by heartctl report \(HeartdVersion.string) at \(ExportDates.iso(data.generated))."
                + (downsampling.enabled ? " Plots are downsampled to their pixel columns (minimum and maximum per column)." : "")))
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(Markup.escape(title))</title><style>\(style)</style></head>
        <body>\(body)</body></html>

        """
    }

    static func scopeLine(_ data: ReportData) -> String {
        let range = "\(ExportDates.iso(data.from)) – \(ExportDates.iso(data.to)) (UTC)"
        guard let s = data.session else { return "Range " + range + devicesNote(data) }
        return "Session \(s.uuid.uuidString), " + range + (s.isActive ? ", still active: statistics so far" : "")
            + devicesNote(data)
    }

    static func devicesNote(_ data: ReportData) -> String {
        data.devices.isEmpty ? "; no device stored data in it." : "; devices: " + data.devices.map(\.displayName).joined(separator: ", ") + "."
    }

    static func figure(_ svg: String, _ legend: String, _ caption: String) -> String {
        Markup.element("figure", [:], svg + Markup.element("figcaption", [:], legend + Markup.escape(caption)))
    }

    static func legend(_ data: ReportData) -> String {
        guard data.devices.count > 1 else { return "" }
        return data.devices.enumerated().map { i, d in
            Markup.element("span", ["class": "key c\(i % colours)"], "■ " + Markup.escape(d.displayName))
        }.joined(separator: " ") + " — "
    }

    static let style = """
    body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1000px;color:#222;padding:0 1em}
    h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
    table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ddd;padding:.25em .6em;text-align:left}
    td.num{text-align:right;font-variant-numeric:tabular-nums}figure{margin:.5em 0}svg{max-width:100%;height:auto}
    figcaption,.scope,.footer,.empty{color:#555;font-size:.9em}
    .frame{fill:none;stroke:#999}.grid{stroke:#eee}.tick,.axis-title{font-size:11px;fill:#555}
    .hr-stretch,.rr-segment{fill:none;stroke-width:1.2;stroke-linejoin:round;stroke-linecap:round}
    .gap-marker{stroke:#d33;stroke-dasharray:4 3;stroke-width:1}.artifact{fill:none;stroke:#d33;stroke-width:1.2}.identity{stroke:#bbb;stroke-dasharray:3 3}
    .hr-band{fill:#1f5fa8;fill-opacity:.25;stroke:none}.hr-average{fill:none;stroke:#1f5fa8;stroke-width:1.2}
    .resting{fill:#c2571a}.hrv-line{fill:none;stroke-width:1.2}
    .pair{fill:#1f5fa8;fill-opacity:.5}.pair-cell{fill:#1f5fa8}
    .c0{stroke:#1f5fa8;color:#1f5fa8}.c1{stroke:#c2571a;color:#c2571a}.c2{stroke:#2a8a3e;color:#2a8a3e}.c3{stroke:#7a3fa0;color:#7a3fa0}
    """
}
