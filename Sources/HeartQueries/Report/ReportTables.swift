import Foundation
import HealthModel

/// The report's tables: statistics and HRV, the session's own fields and metadata, the devices' HKDevice fields.
enum ReportTables {
    /// `SessionStatistics` as the model computed them; nothing is recomputed here.
    /// `gapsWithinData`: a range's time with gaps counts between its first and last beat (a session's, over its span).
    static func statistics(_ s: SessionStatistics, gapsWithinData: Bool = false) -> String {
        let rows: [(String, String)] = [
            ("Duration", duration(s.durationSeconds)),
            ("Beats", String(s.beats)),
            ("Heart rate, average (time-weighted)", fixed(s.heartRateAverage, "bpm")),
            ("Heart rate, minimum", fixed(s.heartRateMinimum, "bpm")),
            ("Heart rate, maximum", fixed(s.heartRateMaximum, "bpm")),
            ("SDNN", fixed(s.sdnnMs, "ms")),
            ("RMSSD", fixed(s.rmssdMs, "ms")),
            ("pNN50", fixed(s.pnn50Percent, "%")),
            ("Active energy", fixed(s.activeEnergyKJ, "kJ")),
            (gapsWithinData ? "Time with gaps (between the first and the last beat)" : "Time with gaps", fixed(s.gapSeconds, "s")),
        ]
        return table(rows.map { [Markup.escape($0.0), $0.1] }, header: ["", "value"], numeric: 1, id: "statistics")
    }

    /// The full analysis: artifacts found (per class) and corrected, then the corrected intervals' time, frequency and
    /// nonlinear measures (docs/HRV.md states each convention).
    static func analysis(_ a: HRVAnalysis) -> String {
        let found = RRArtifactClass.allCases.filter { $0 != .normal }
            .map { "\($0.rawValue) \(a.artifacts.classes[$0.rawValue] ?? 0)" }.joined(separator: ", ")
        var rows: [(String, String)] = [
            ("RR intervals", String(a.artifacts.intervals)),
            ("Artifacts found", "\(a.artifacts.artifacts) (\(found))"),
            ("Beats corrected", String(a.artifacts.corrected) + " (" + String(format: "%.2f", a.artifacts.correctedPercent) + " %)"),
            ("Mean NN", fixed(a.time.meanNNMs, "ms")),
            ("Median NN", fixed(a.time.medianNNMs, "ms")),
            ("SDNN", fixed(a.time.metrics.sdnnMs, "ms")),
            ("RMSSD", fixed(a.time.metrics.rmssdMs, "ms")),
            ("pNN50", fixed(a.time.metrics.pnn50Percent, "%")),
            ("pNN20", fixed(a.time.pnn20Percent, "%")),
            ("SD1 / SD2", a.poincare.map { fixed($0.sd1Ms, "ms") + " / " + fixed($0.sd2Ms, "ms") } ?? "—"),
            ("DFA α1 (4–16 beats)", a.dfaAlpha1.map { String(format: "%.3f", $0) } ?? "—"),
            ("DFA α2 (16–64 beats)", a.dfaAlpha2.map { String(format: "%.3f", $0) } ?? "—"),
        ]
        for (name, spectrum) in [("Welch", a.frequency), ("Lomb–Scargle", a.lombScargle)] {
            guard let f = spectrum else {
                rows.append(("Frequency domain (\(name))", "— (no gap-free run of 120 s)"))
                continue
            }
            rows += [
                ("VLF / LF / HF power (\(name))", fixed(f.vlfMs2, "ms²") + " / " + fixed(f.lfMs2, "ms²") + " / " + fixed(f.hfMs2, "ms²")),
                ("LF / HF (normalised units, \(name))", fixed(f.lfNu, "nu") + " / " + fixed(f.hfNu, "nu")),
                ("LF/HF (\(name))", f.lfHfRatio.map { String(format: "%.2f", $0) } ?? "—"),
                ("LF / HF peak (\(name))", (f.lfPeakHz.map { String(format: "%.3f Hz", $0) } ?? "—") + " / "
                    + (f.hfPeakHz.map { String(format: "%.3f Hz", $0) } ?? "—")),
            ]
        }
        if let warning = a.artifacts.warning { rows.append(("Warning", warning)) }
        return table(rows.map { [Markup.escape($0.0), Markup.escape($0.1)] }, header: ["", "value"], numeric: 1, id: "hrv")
    }

    static func session(_ s: Session) -> String {
        var rows: [(String, String)] = [("UUID", s.uuid.uuidString), ("Label", s.label ?? "—"),
                                        ("Start", ExportDates.iso(s.start)), ("End", s.end.map(ExportDates.iso) ?? "active"),
                                        ("Devices", s.devices.isEmpty ? "every sensor" : s.devices.joined(separator: ", "))]
        rows += s.metadata.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return Markup.text("h2", [:], "Session") + table(rows.map { [Markup.escape($0.0), Markup.escape($0.1)] },
                                                         header: ["", ""], numeric: nil, id: "session")
    }

    static func devices(_ devices: [ReportDevice]) -> String {
        guard !devices.isEmpty else { return Markup.text("p", ["class": "empty"], "No device.") }
        let fields: [(String, (DeviceInfo) -> String?)] = [
            ("Name", \.name), ("Manufacturer", \.manufacturer), ("Model", \.model),
            ("Serial number", { $0.metadata[MetadataKey.serialNumber] }), ("Firmware", \.firmwareVersion),
            ("Hardware", \.hardwareVersion), ("Software", \.softwareVersion),
            ("Body sensor location", { $0.metadata[MetadataKey.bodySensorLocation] }),
        ]
        let rows = [["Address"] + devices.map { Markup.escape($0.address) }]
            + fields.map { name, value in [name] + devices.map { Markup.escape($0.info.flatMap(value) ?? "—") } }
        return table(rows, header: nil, numeric: nil, id: "devices")
    }

    static func table(_ rows: [[String]], header: [String]?, numeric: Int?, id: String) -> String {
        var html = header.map { h in Markup.element("tr", [:], h.map { Markup.text("th", [:], $0) }.joined()) } ?? ""
        for row in rows {
            html += Markup.element("tr", [:], row.enumerated().map { i, cell in
                i == 0 ? Markup.element("th", [:], cell) : Markup.element("td", i == numeric ? ["class": "num"] : [:], cell)
            }.joined())
        }
        return Markup.element("table", ["id": id], html)
    }

    /// One decimal and the unit; "—" when there is no value.
    static func fixed(_ value: Double?, _ unit: String) -> String {
        guard let value, value.isFinite else { return "—" }
        return String(format: "%.1f", value) + " " + unit
    }

    /// `1 h 02 min 03 s` (and the seconds).
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        let text = s >= 3600 ? "\(s / 3600) h \(String(format: "%02d", s / 60 % 60)) min \(String(format: "%02d", s % 60)) s"
            : s >= 60 ? "\(s / 60) min \(String(format: "%02d", s % 60)) s" : "\(s) s"
        return text
    }
}
