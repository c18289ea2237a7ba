import Foundation
import HealthModel
import Testing
@testable import HeartQueries

/// The report renderer without I/O: gaps break the heart-rate line and the tachogram, Poincaré pairs never span a
/// gap or two series, user text is escaped, and a 24-hour session stays under 2 MB.
@Suite struct ReportRendererTests {
    static let t0 = Date(timeIntervalSinceReferenceDate: 816_000_000) // a midnight UTC
    static let strap = DeviceInfo(name: "Strap", manufacturer: "Polar Electro Oy", model: "H10", localIdentifier: "A0:9E:1A:00:00:01",
                                  metadata: [MetadataKey.serialNumber: "SN-1"])

    /// Heart-rate points of `duration` seconds each, one a second over `seconds`, none in `gap`.
    static func heartRate(seconds: Range<Int>, skipping gap: Range<Int>? = nil) -> [QuantityPoint] {
        seconds.compactMap { s in
            if let gap, gap.contains(s) { return nil }
            let start = t0.addingTimeInterval(Double(s))
            return QuantityPoint(value: 60 + Double(s % 40), start: start, end: start.addingTimeInterval(1))
        }
    }

    /// A heartbeat series starting at `start` seconds with the given RR intervals (ms); `gapBefore` flags beats.
    static func series(start: Double, rr: [Double], gapBefore: Set<Int> = [], device: DeviceInfo = strap) -> HeartbeatSeriesSample {
        var offset = 0.0
        var beats = [Beat(offset: 0, precededByGap: gapBefore.contains(0))]
        for (i, ms) in rr.enumerated() {
            offset += ms / 1000
            beats.append(Beat(offset: offset, precededByGap: gapBefore.contains(i + 1)))
        }
        return HeartbeatSeriesSample(start: t0.addingTimeInterval(start), end: t0.addingTimeInterval(start + offset),
                                     beats: beats, device: device)
    }

    static func data(_ devices: [ReportDevice], seconds: Double, session: Session? = nil,
                     statistics: SessionStatistics = SessionStatistics(durationSeconds: 0, beats: 0, gapSeconds: 0)) -> ReportData {
        ReportData(session: session, from: t0, to: t0.addingTimeInterval(seconds), statistics: statistics, devices: devices,
                   generated: t0)
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test func aGapInTheHeartRateIsABreakInTheLine() {
        let device = ReportDevice(address: "A0:9E:1A:00:00:01", info: Self.strap,
                                  heartRate: Self.heartRate(seconds: 0..<120, skipping: 50..<70), series: [])
        let html = ReportPage.render(Self.data([device], seconds: 120))
        #expect(Self.count("class=\"hr-stretch\"", in: html) == 2)
        // Without the gap: one line.
        let whole = ReportDevice(address: "A0:9E:1A:00:00:01", info: Self.strap, heartRate: Self.heartRate(seconds: 0..<120), series: [])
        #expect(Self.count("class=\"hr-stretch\"", in: ReportPage.render(Self.data([whole], seconds: 120))) == 1)
    }

    @Test func downsamplingKeepsTheBreaksAndTheExtremes() {
        var points = Self.heartRate(seconds: 0..<86_400, skipping: 40_000..<40_100)
        points[10_000].value = 190 // one spike must survive
        let device = ReportDevice(address: "A0:9E:1A:00:00:01", info: Self.strap, heartRate: points, series: [])
        let data = Self.data([device], seconds: 86_400)
        let stretches = HeartRatePlot.stretches(points, from: data.start, to: data.end)
        #expect(stretches.count == 2)
        let reduced = Downsampling().minMaxPerColumn(stretches[0], from: data.start, columnWidth: 86_400 / 888)
        #expect(reduced.count < 2 * 888 && reduced.contains { $0.1 == 190 })
        #expect(Self.count("class=\"hr-stretch\"", in: ReportPage.render(data)) == 2)
    }

    @Test func poincarePairsAndTachogramLinesNeverSpanAGapOrTwoSeries() {
        // Series 1: 5 intervals, then a gap-flagged beat 5 s later, then 3 intervals; series 2 (another strap) right after.
        let other = DeviceInfo(name: "Second", localIdentifier: "A0:9E:1A:00:00:02")
        let a = Self.series(start: 0, rr: [800, 810, 820, 830, 840, 5000, 850, 860, 870], gapBefore: [6])
        let b = Self.series(start: 12, rr: [700, 710], device: other)
        let devices = [ReportDevice(address: "A0:9E:1A:00:00:01", info: Self.strap, heartRate: [], series: [a]),
                       ReportDevice(address: "A0:9E:1A:00:00:02", info: other, heartRate: [], series: [b])]
        let data = Self.data(devices, seconds: 60)
        let rr = devices.map { RRSegments($0.series, from: data.start, to: data.end) }
        // The same segments as the HRV model makes (so the plot shows what SDNN/RMSSD were computed over).
        #expect(rr[0].segments.map { $0.map(\.ms) }.flatMap { $0 }.map { $0.rounded() }
                == HRVMetrics.segments(of: a.beats).flatMap { $0 }.map { $0.rounded() })
        let pairs = rr.flatMap(\.pairs).map { [$0.0.rounded(), $0.1.rounded()] }
        #expect(pairs == [[800, 810], [810, 820], [820, 830], [830, 840], [850, 860], [860, 870], [700, 710]])
        #expect(!pairs.flatMap { $0 }.contains(5000))
        let html = ReportPage.render(data)
        #expect(Self.count("class=\"pair\"", in: html) == 7)
        #expect(Self.count("class=\"rr-segment\"", in: html) == 3)
        #expect(Self.count("class=\"gap-marker\"", in: html) == 1)
    }

    @Test func userTextIsEscaped() {
        let label = "<script>alert(1)</script>"
        let device = DeviceInfo(name: "<img src=x onerror=alert(2)>", manufacturer: "A & B \"quoted\"", localIdentifier: "A0:9E:1A:00:00:01")
        let session = Session(label: label, start: Self.t0, end: Self.t0.addingTimeInterval(60),
                              metadata: ["<k>": "v'</td>"])
        let html = ReportPage.render(Self.data([ReportDevice(address: "A0:9E:1A:00:00:01", info: device, heartRate: [], series: [])],
                                               seconds: 60, session: session))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("A &amp; B &quot;quoted&quot;"))
        #expect(html.contains("&lt;k&gt;") && html.contains("v&#39;&lt;/td&gt;"))
    }

    @Test func statisticsAreShownAsTheModelComputedThem() {
        let stats = SessionStatistics(durationSeconds: 3723, beats: 4321, heartRateAverage: 72.34, heartRateMinimum: 51,
                                      heartRateMaximum: 160.96, sdnnMs: 41.25, rmssdMs: 33.333, pnn50Percent: 12.5,
                                      activeEnergyKJ: nil, gapSeconds: 12)
        let html = ReportPage.render(Self.data([], seconds: 3723, statistics: stats))
        for text in ["1 h 02 min 03 s", ">4321<", "72.3 bpm", "51.0 bpm", "161.0 bpm", "41.2 ms", "33.3 ms", "12.5 %", "12.0 s"] {
            #expect(html.contains(text), "\(text)")
        }
    }

    @Test func aTwentyFourHourSessionStaysUnderTwoMegabytes() {
        // 24 h: 86 400 heart-rate points with 4 gaps, ~100 000 beats in series of 1000 with a gap-flagged beat in each.
        let gaps = [10_000..<10_060, 30_000..<30_200, 50_000..<50_010, 70_000..<70_500]
        let points = Self.heartRate(seconds: 0..<86_400).filter { p in
            let s = Int(p.start.timeIntervalSince(Self.t0))
            return !gaps.contains { $0.contains(s) }
        }
        var series: [HeartbeatSeriesSample] = []
        var start = 0.0, k = 0
        while start < 86_000 {
            let rr = (0..<1000).map { i in 800 + 120 * sin(Double(k * 1000 + i) / 40) }
            let s = Self.series(start: start, rr: rr, gapBefore: [500])
            series.append(s)
            start = s.end.timeIntervalSince(Self.t0) + 0.8
            k += 1
        }
        let device = ReportDevice(address: "A0:9E:1A:00:00:01", info: Self.strap, heartRate: points, series: series)
        let data = Self.data([device], seconds: 86_400)
        let html = ReportPage.render(data)
        #expect(html.utf8.count < 2_000_000, "\(html.utf8.count) bytes")
        #expect(Self.count("class=\"hr-stretch\"", in: html) == 5)
        #expect(html.contains("class=\"pair-density\""))
    }

    @Test func theReportShowsTheAnalysisAndRingsTheArtifactsOnTheTachogram() throws {
        var rr = (0..<400).map { i in 800 + 40 * sin(Double(i) / 5) }
        rr[200] -= 250  // a premature beat: short, then long
        rr[201] += 250
        let device = ReportDevice(address: "A0:9E:1A:00:00:01", info: Self.strap, heartRate: [],
                                  series: [Self.series(start: 0, rr: rr)])
        let hrv = try #require(StoreQueries.analysis([device], from: Self.t0, to: Self.t0.addingTimeInterval(400)))
        #expect(hrv.artifacts.intervals == 400 && hrv.artifacts.artifacts >= 1 && hrv.artifacts.corrected >= 1, "\(hrv.artifacts)")
        #expect(hrv.dfaAlpha1 != nil && hrv.frequency != nil && hrv.lombScargle != nil)
        // Only the range's beats: the first 100 s hold about 125 intervals.
        let part = try #require(StoreQueries.analysis([device], from: Self.t0, to: Self.t0.addingTimeInterval(100)))
        #expect(part.artifacts.intervals < 130)
        var data = Self.data([device], seconds: 400)
        data.hrv = hrv
        let html = ReportPage.render(data)
        for text in ["id=\"hrv\"", "Artifacts found", "Beats corrected", "DFA α1", "VLF / LF / HF power (Welch)",
                     "VLF / LF / HF power (Lomb–Scargle)", "LF / HF peak (Lomb–Scargle)", "SD1 / SD2"] {
            #expect(html.contains(text), "\(text)")
        }
        #expect(Self.count("class=\"artifact\"", in: html) == hrv.artifacts.artifacts)
        #expect(Self.count("class=\"artifact\" data-class=\"normal\"", in: html) == 0)
        // Without an analysis (a trend, too few beats) there is no table.
        #expect(!ReportPage.render(Self.data([device], seconds: 400)).contains("id=\"hrv\""))
    }
}
