import Foundation
import HealthModel
import HeartStore
import TestBus
import Testing

/// `heartctl report`: the real heartctl writes the HTML from a real store file (`--db`) and from the running
/// daemon (socket), and a real headless browser (Debian's chromium, installed by scripts/setup.sh) reads it: the
/// statistics, one heart-rate line per stretch around a gap, the gap marker, the label shown as text, the device.
@Suite("heartctl report", .serialized)
struct HeartctlReportTests {
    static let t0 = Date(timeIntervalSince1970: 1_789_948_800)
    static let label = "<script>alert('x')</script> & round 1"
    static let strap = DeviceInfo(name: "Polar H10 <A1>", manufacturer: "Polar Electro Oy", model: "H10",
                                  hardwareVersion: "39044024.10", firmwareVersion: "5.0.0", softwareVersion: "sw-3.1",
                                  localIdentifier: "A0:9E:1A:00:00:01", metadata: [MetadataKey.serialNumber: "C0FFEE42"])

    /// A store with two minutes of one strap: beats and 1 Hz heart rate, nothing for 20 s in the middle (a disconnect:
    /// the beat after it is gap-flagged), and a stopped session over it with an unsafe label.
    static func store(_ path: String) throws -> Session {
        let db = try HeartDatabase(path: path)
        defer { try? db.close() }
        var samples: [Sample] = []
        for (from, to, gapFirst) in [(0.0, 50.0, false), (70.0, 120.0, true)] {
            var beats: [Beat] = []
            var t = 0.0, i = 0
            while from + t < to {
                beats.append(Beat(offset: t, precededByGap: gapFirst && i == 0))
                t += (800 + 60 * sin(Double(i) / 3)) / 1000
                i += 1
            }
            let start = t0.addingTimeInterval(from)
            samples.append(.heartbeatSeries(HeartbeatSeriesSample(start: start, end: start.addingTimeInterval(beats.last!.offset),
                                                                  beats: beats, device: strap)))
            let points = stride(from: from, to: to, by: 1).map { s in
                QuantityPoint(value: 70 + 5 * sin(s / 7), start: t0.addingTimeInterval(s), end: t0.addingTimeInterval(s + 1))
            }
            samples.append(.quantity(QuantitySample(
                type: .heartRate, start: points[0].start, end: points.last!.end, points: points,
                aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted), device: strap)))
        }
        try db.save(samples)
        let session = try db.startSession(Session(label: label, start: t0, devices: ["A0:9E:1A:00:00:01"],
                                                  metadata: ["subject": "S<01>"]))
        return try db.stopSession(uuid: session.uuid, end: t0.addingTimeInterval(120))
    }

    /// The DOM chromium builds from the file (no script runs: the page has none).
    static func browserDOM(_ html: String, dir: TestDirectory) throws -> String {
        guard let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: {
            FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw DaemonProcess.Failure(description: "no chromium: run scripts/setup.sh (installs Debian's chromium)")
        }
        let r = try runTool(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(dir.file("chromium"))",
                                       "--dump-dom", "file://\(html)"], environment: ["HOME": dir.path], timeout: 30)
        #expect(r.status == 0, "\(r.err)")
        return r.out
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    @Test("a report from a store file, as a browser shows it")
    func reportFromStoreFileInABrowser() throws {
        let dir = try TestDirectory("report")
        defer { dir.remove() }
        let session = try Self.store(dir.file("heart.db"))
        let stats = try #require(session.statistics)
        let html = dir.file("report.html")
        let r = try runTool(try BuiltProducts.path("heartctl"),
                            ["report", "--db", dir.file("heart.db"), "--session", session.uuid.uuidString, "-o", html])
        #expect(r.status == 0, "\(r.err)")
        let source = try String(contentsOfFile: html, encoding: .utf8)
        // Self-contained: no script, no link, no URL but the SVG namespace.
        let outside = source.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
        #expect(!outside.contains("http") && !outside.contains("src=") && !outside.contains("<link") && !outside.contains("<script"))
        let dom = try Self.browserDOM(html, dir: dir)
        // The label is text, not a script element.
        #expect(!dom.contains("<script"))
        #expect(dom.contains("&lt;script&gt;alert('x')&lt;/script&gt; &amp; round 1"))
        #expect(dom.contains("S&lt;01&gt;"))
        // The statistics the store computed at the stop.
        let table = try #require(dom.range(of: "<table id=\"statistics\">").map { String(dom[$0.lowerBound...].prefix(2000)) })
        #expect(table.contains(">\(stats.beats)<"), "\(table)")
        for value in [stats.heartRateAverage, stats.sdnnMs, stats.rmssdMs] {
            #expect(table.contains(String(format: "%.1f", try #require(value))), "\(table)")
        }
        #expect(table.contains("2 min 00 s"))
        // Two heart-rate lines (the gap breaks it), two tachogram segments, one gap marker, a Poincaré plot.
        #expect(Self.count("<svg", in: dom) == 3)
        #expect(Self.count("class=\"hr-stretch\"", in: dom) == 2)
        #expect(Self.count("class=\"rr-segment\"", in: dom) == 2)
        #expect(Self.count("class=\"gap-marker\"", in: dom) == 1)
        #expect(Self.count("class=\"pair\"", in: dom) > 100)
        // The device's HKDevice fields.
        for field in ["Polar H10 &lt;A1&gt;", "Polar Electro Oy", "H10", "C0FFEE42", "5.0.0", "39044024.10", "sw-3.1", "A0:9E:1A:00:00:01"] {
            #expect(dom.contains(field), "\(field)")
        }
    }

    @Test("a report of a session from the running daemon")
    func reportFromTheDaemon() async throws {
        let dir = try TestDirectory("report-live")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20, settings: ["series.max_duration_seconds=10"])
        defer { daemon.stop() }
        let heartctl = try BuiltProducts.path("heartctl")
        let started = try runTool(heartctl, ["session", "start", "--label", "<b>live</b>", "--socket", daemon.socket])
        #expect(started.status == 0, "\(started.err)")
        let uuid = started.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let html = dir.file("live.html")
        // Until the session has a heart-rate stretch and an RR segment to draw (a few simulated seconds).
        var active = (status: Int32(-1), out: "", err: "")
        #expect(await eventually(every: .milliseconds(200)) {
            active = try runTool(heartctl, ["report", "--session", uuid, "-o", html, "--socket", daemon.socket, "--json"])
            let page = try String(contentsOfFile: html, encoding: .utf8)
            return Self.count("class=\"hr-stretch\"", in: page) >= 1 && Self.count("class=\"rr-segment\"", in: page) >= 1
        })
        #expect(active.status == 0, "\(active.err)")
        #expect(active.out.contains("\"devices\":1"), "\(active.out)")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("still active"))
        #expect(page.contains("&lt;b&gt;live&lt;/b&gt;") && !page.contains("<b>live"))
        #expect(Self.count("class=\"hr-stretch\"", in: page) >= 1 && Self.count("class=\"rr-segment\"", in: page) >= 1)
        let stopped = try runTool(heartctl, ["session", "stop", uuid, "--socket", daemon.socket])
        #expect(stopped.status == 0, "\(stopped.err)")
        let beats = try #require(stopped.out.firstMatch(of: /"beats":(\d+)/).map { String($0.1) })
        let after = try runTool(heartctl, ["report", "--session", uuid, "-o", html, "--socket", daemon.socket])
        #expect(after.status == 0, "\(after.err)")
        let final = try String(contentsOfFile: html, encoding: .utf8)
        #expect(!final.contains("still active") && final.contains(">\(beats)<"))
        // Bad input: a clear error, exit 2, nothing written.
        let bad = try runTool(heartctl, ["report", "--session", "nope", "-o", dir.file("x.html"), "--socket", daemon.socket])
        #expect(bad.status == 2 && !FileManager.default.fileExists(atPath: dir.file("x.html")), "\(bad.err)")
    }
}
