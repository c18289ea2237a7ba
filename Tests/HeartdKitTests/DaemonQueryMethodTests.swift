import Foundation
import TestBus
import Testing

/// The query control methods against the real `heartd --simulate` process: answers are present, plausible and
/// consistent with each other (series ↔ show ↔ beats ↔ stats ↔ hrv ↔ changes). `export` and `watch`:
/// `DaemonStreamingMethodTests`.
@Suite("heartd control socket: query methods", .serialized)
struct DaemonQueryMethodTests {
    static let heartbeatType = "HKDataTypeIdentifierHeartbeatSeries"
    static let heartRateType = "HKQuantityTypeIdentifierHeartRate"

    /// A daemon at 20× with short series, run until it has finished a few of each.
    static func runningDaemon(_ dir: TestDirectory) throws -> DaemonProcess {
        let daemon = try DaemonProcess(dir: dir, speed: 20, settings: ["series.max_duration_seconds=10"])
        // 10 simulated seconds = 0.5 s of wall time per series; wait until several are stored.
        let client = try daemon.client()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let listed = try client.callObject("series", ["type": "heartbeat", "to": "2100-01-01"])
            if TestJSON.objects(listed["samples"]).count >= 3 { return daemon }
            usleep(100_000)
        }
        throw DaemonProcess.Failure(description: "no 3 heartbeat series within 15 s:\n\(daemon.log())")
    }

    @Test("status reports version, protocol, pid, mode, the simulated device and the store")
    func status() async throws {
        let dir = try TestDirectory("status")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20)
        defer { daemon.stop() }
        let client = try daemon.client()
        // Until the simulated sensor is connected (then every field below has its value).
        #expect(await eventually {
            TestJSON.objects(try client.callObject("status")["devices"]).first?["connected"] as? Bool == true
        })
        let first = try client.callObject("status")
        #expect(first["protocol"] as? String == "heartd-control/1")
        #expect((first["version"] as? String)?.isEmpty == false)
        #expect(first["pid"] as? Int == Int(daemon.pid))
        #expect(first["mode"] as? String == "simulate")
        #expect((first["capture"] as? [String: Any])?["source"] as? String == "simulator")
        #expect(first["watchers"] as? Int == 0)
        #expect(TestJSON.date(first["started"]).map { abs($0.timeIntervalSinceNow) < 60 } == true)
        let store = try #require(first["store"] as? [String: Any])
        #expect(store["path"] as? String == daemon.db)
        #expect((store["size_bytes"] as? Int ?? 0) > 0)
        let sink = try #require(store["sink"] as? [String: Any])
        #expect(sink["queuedBeats"] as? Int == 0)
        #expect(sink["failures"] as? Int == 0)
        let device = try #require(TestJSON.objects(first["devices"]).first)
        #expect(device["address"] as? String == "00:00:00:00:00:00")
        #expect(device["connected"] as? Bool == true)
        if let bpm = device["currentBPM"] as? Int { #expect((30...220).contains(bpm)) }
        // Capture is live: beats keep increasing between two calls.
        #expect(await eventually { TestJSON.beats(inStatus: try client.callObject("status")) > TestJSON.beats(inStatus: first) })
    }

    @Test("series, show, beats, stats, hrv, quantities and changes agree")
    func queriesAgree() throws {
        let dir = try TestDirectory("queries")
        defer { dir.remove() }
        let daemon = try Self.runningDaemon(dir)
        defer { daemon.stop() }
        let client = try daemon.client()
        let listed = try client.callObject("series", ["to": "2100-01-01", "include_open": true])
        #expect(TestJSON.objects(try client.callObject("series", ["to": "2100-01-01"])["samples"]).allSatisfy { $0["open"] == nil },
                "without include_open: stored series only")
        // The series still being captured come last, marked open, with their data so far; the rest is stored.
        let open = TestJSON.objects(listed["samples"]).filter { $0["open"] as? Bool == true }
        let all = TestJSON.objects(listed["samples"]).filter { $0["open"] == nil }
        #expect(listed["open"] as? Int == open.count)
        #expect(open.contains { $0["typeIdentifier"] as? String == Self.heartbeatType && ($0["count"] as? Int ?? 0) > 0 },
                "the simulator's open heartbeat series: \(open)")
        let openHeartbeat = try #require(open.first { $0["typeIdentifier"] as? String == Self.heartbeatType }?["uuid"] as? String)
        let openBeats = try client.callObject("beats", ["uuid": openHeartbeat])
        #expect(openBeats["open"] as? Bool == true)
        #expect((openBeats["beats"] as? [Any])?.isEmpty == false, "an open series' beats so far")
        #expect(try client.callObject("stats", ["from": "-1h"])["open_series"] as? Int ?? 0 >= 1)
        let heartbeat = try #require(all.first { $0["typeIdentifier"] as? String == Self.heartbeatType })
        let heartRate = try #require(all.first { $0["typeIdentifier"] as? String == Self.heartRateType })
        for sample in all {
            let meta = sample["metadata"] as? [String: Any]
            #expect(meta?["HeartdFinishReason"] as? String == "max-duration", "every series so far rotated by duration")
            #expect(sample["device"] != nil)
        }

        // show ↔ series ↔ beats for a heartbeat series.
        let uuid = try #require(heartbeat["uuid"] as? String)
        let shown = try client.callObject("show", ["uuid": uuid])
        #expect(shown["uuid"] as? String == uuid)
        #expect(shown["start"] as? String == heartbeat["start"] as? String)
        #expect(shown["end"] as? String == heartbeat["end"] as? String)
        let shownBeats = TestJSON.objects(shown["beats"])
        let rows = try #require(try client.callObject("beats", ["uuid": uuid])["beats"] as? [[Any]])
        #expect(rows.count == heartbeat["count"] as? Int)
        #expect(shownBeats.count == rows.count)
        let offsets = rows.compactMap { TestJSON.double($0.first) }
        let gaps = rows.map { $0.last as? Bool ?? false }
        #expect(offsets == shownBeats.compactMap { TestJSON.double($0["offset"]) })
        #expect(offsets.first == 0)
        #expect(zip(offsets, offsets.dropFirst()).allSatisfy { $0 < $1 }, "offsets strictly increase")
        let start = try #require(TestJSON.date(heartbeat["start"]))
        let end = try #require(TestJSON.date(heartbeat["end"]))
        #expect(abs(start.addingTimeInterval(offsets.last ?? 0).timeIntervalSince(end)) < 0.002, "end = last beat")

        // hrv of that series = SDNN computed here from its beats (no RR across a gap).
        var rr: [Double] = []
        for i in 1..<offsets.count where !gaps[i] { rr.append((offsets[i] - offsets[i - 1]) * 1000) }
        let hrv = try client.callObject("hrv", ["uuid": uuid])
        #expect(hrv["count"] as? Int == rr.count)
        let mean = rr.reduce(0, +) / Double(rr.count)
        let sdnn = (rr.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(rr.count - 1)).squareRoot()
        #expect(abs((TestJSON.double(hrv["sdnn_ms"]) ?? -1) - sdnn) < 1e-6)
        let meanRate = rr.map { 60000 / $0 }.reduce(0, +) / Double(rr.count)
        #expect(abs((TestJSON.double(hrv["mean_hr_bpm"]) ?? -1) - meanRate) < 1e-6)

        // stats and quantities over one heart-rate series = its aggregates. Its points span [start, end); the
        // previous series' last point ends at `start` (excluded by starting 1 ms later), the next one's first
        // point starts at `end` (excluded: ranges are half-open).
        let hrStart = try #require(TestJSON.date(heartRate["start"]))
        let hrEnd = try #require(TestJSON.date(heartRate["end"]))
        let range: [String: Any] = ["from": TestJSON.unix(hrStart) + 0.001, "to": TestJSON.unix(hrEnd)]
        let points = TestJSON.objects(try client.callObject("quantities", range)["points"])
        #expect(points.count == heartRate["count"] as? Int)
        let stats = try #require(try client.callObject("stats", range)["statistics"] as? [String: Any])
        let aggregates = try #require(heartRate["aggregates"] as? [String: Any])
        #expect(stats["count"] as? Int == heartRate["count"] as? Int)
        #expect(TestJSON.double(stats["minimum"]) == TestJSON.double(aggregates["minimum"]))
        #expect(TestJSON.double(stats["maximum"]) == TestJSON.double(aggregates["maximum"]))
        if let a = TestJSON.double(stats["average"]), let b = TestJSON.double(aggregates["average"]) {
            // Heart rate is temporally weighted: the range cuts 1 ms off the first point's weight.
            #expect(abs(a - b) < 0.01)
        } else {
            Issue.record("average missing: \(stats) / \(aggregates)")
        }
        let values = points.compactMap { TestJSON.double($0["value"]) }
        #expect(values.allSatisfy { (30...220).contains($0) })
        let buckets = try client.callObject("stats", range.merging(["interval": 60]) { a, _ in a })
        #expect(TestJSON.objects(buckets["buckets"]).isEmpty == false)

        // changes from 0 lists every stored sample, with increasing anchors.
        let changes = try client.callObject("changes", ["anchor": 0, "limit": 100_000])
        let added = Set(TestJSON.objects(changes["added"]).compactMap { $0["uuid"] as? String })
        #expect(Set(all.compactMap { $0["uuid"] as? String }).isSubset(of: added))
        #expect((changes["anchor"] as? Int ?? 0) >= all.compactMap { $0["anchor"] as? Int }.max() ?? 1)

        // devices: the stored simulator row plus the live status.
        let devices = try client.callObject("devices")
        #expect(TestJSON.objects(devices["devices"]).contains { $0["address"] as? String == "00:00:00:00:00:00" })
        #expect(TestJSON.objects(devices["live"]).count == 1)
    }

    @Test("delete leaves a tombstone in changes; allow and forget are unavailable for the simulator")
    func deleteAndPolicy() throws {
        let dir = try TestDirectory("delete")
        defer { dir.remove() }
        let daemon = try Self.runningDaemon(dir)
        defer { daemon.stop() }
        let client = try daemon.client()
        let listed = TestJSON.objects(try client.callObject("series", ["type": "heartbeat", "to": "2100-01-01"])["samples"])
        let uuid = try #require(listed.first?["uuid"] as? String)
        let before = try #require(try client.callObject("changes", ["anchor": 0, "limit": 100_000])["anchor"] as? Int)
        #expect(try client.callObject("delete", ["uuid": uuid])["deleted"] as? Bool == true)
        #expect(try client.request("show", ["uuid": uuid]).errorCode == "not-found")
        #expect(try client.request("beats", ["uuid": uuid]).errorCode == "not-found")
        let changes = try client.callObject("changes", ["anchor": before, "limit": 100_000])
        #expect((changes["deleted"] as? [String])?.contains(uuid) == true)
        #expect(try client.callObject("delete", ["uuid": uuid])["deleted"] as? Bool == false, "second delete")

        #expect(try client.request("allow", ["address": "AA:BB:CC:DD:EE:FF"]).errorCode == "unavailable")
        #expect(try client.request("forget", ["address": "aa:bb:cc:dd:ee:ff"]).errorCode == "unavailable")
        #expect(try client.request("allow", ["address": "not-an-address"]).errorCode == "invalid-params")
        #expect(try client.request("forget", [:]).errorCode == "invalid-params")
    }
}
