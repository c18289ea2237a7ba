import Foundation
import TestBus
import Testing

/// `--session` and `--meta` on every listing (series, stats, hrv, export, sessions) against a running daemon (the
/// simulator at real-time speed, sessions on its wall clock), over the socket and with `--db`; open series are
/// filtered as stored ones.
@Suite("session and metadata queries against a running daemon", .serialized)
struct DaemonSessionQueryTests {
    func json(_ r: (status: Int32, out: String, err: String)) throws -> [String: Any] {
        #expect(r.status == 0, "\(r)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r)")
    }

    func uuids(_ list: Any?) -> Set<String> { Set(TestJSON.objects(list).compactMap { $0["uuid"] as? String }) }

    @Test("series, stats, hrv, export and sessions by session and by metadata predicate", .timeLimit(.minutes(3)))
    func queriesBySessionAndMetadata() async throws {
        let dir = try TestDirectory("session-query")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 1, settings: ["series.max_duration_seconds=2"])
        let client = try daemon.client()
        let sessions = DaemonSessionTests()
        func heartctl(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try sessions.heartctl(daemon, arguments)
        }
        let x = try client.callObject("session.start", ["label": "x", "metadata": ["subject": "S01"]])
        let xid = x["uuid"] as? String ?? ""
        let elsewhere = try client.callObject("session.start", ["label": "elsewhere", "devices": ["11:22:33:44:55:66"]])
        let eid = elsewhere["uuid"] as? String ?? ""
        // The open series carry their tags already: listed under their session, and not under the other one.
        var openX: [String: Any] = [:]
        #expect(await eventually {
            openX = try json(try heartctl(["--json", "series", "--session", xid]))
            return TestJSON.objects(openX["samples"]).contains { $0["open"] as? Bool == true }
        }, "\(openX)")
        let openElsewhere = try json(try heartctl(["--json", "series", "--session", eid]))
        #expect(TestJSON.objects(openElsewhere["samples"]).isEmpty, "\(openElsewhere)")
        #expect(try json(try heartctl(["--json", "stats", "--session", eid]))["open_series"] as? Int == 0)
        // Right after a rotation a device has no open heart-rate series for a moment: ask again until it has one.
        var openInX = 0
        for _ in 0..<30 where openInX == 0 {
            openInX = try json(try heartctl(["--json", "stats", "--session", xid]))["open_series"] as? Int ?? 0
            if openInX == 0 { usleep(100_000) }
        }
        #expect(openInX >= 1)

        try sessions.waitForSeries(client, after: x["start"] as? String ?? "")
        usleep(1_000_000)  // pacing: session x goes on a second past its first stored series
        let stoppedX = try client.callObject("session.stop", ["uuid": xid])
        _ = try client.callObject("session.stop", ["uuid": eid])
        let y = try client.callObject("session.start", ["label": "y", "metadata": ["subject": "S02"]])
        try sessions.waitForSeries(client, after: y["start"] as? String ?? "")
        _ = try client.callObject("session.stop", ["uuid": y["uuid"] as? String ?? ""])
        let z = try client.callObject("session.start", ["label": "z", "metadata": ["subject": "S03", "condition": "task"]])
        _ = try client.callObject("session.stop", ["uuid": z["uuid"] as? String ?? ""])
        let yid = y["uuid"] as? String ?? "", zid = z["uuid"] as? String ?? ""

        // sessions --meta: a repeated key allows either value; different keys must all match.
        #expect(uuids(try json(try heartctl(["--json", "sessions", "--meta", "subject=S01", "--meta", "subject=S02"]))["sessions"])
                == [xid, yid])
        #expect(uuids(try json(try heartctl(["--json", "sessions", "--meta", "subject=S03", "--meta", "condition=task"]))["sessions"])
                == [zid])
        #expect(uuids(try json(try heartctl(["--json", "sessions", "--meta", "subject=S01", "--meta", "condition=task"]))["sessions"])
                .isEmpty)

        // series --meta on the series' own tags: either session's label.
        let storedX = uuids(try client.callObject("series", ["session": xid])["samples"])
        let storedY = uuids(try client.callObject("series", ["session": yid])["samples"])
        #expect(!storedX.isEmpty && !storedY.isEmpty && storedX.isDisjoint(with: storedY))
        let byLabel = try json(try heartctl(["--json", "series", "--meta", "HeartdSessionLabel=x", "--meta", "HeartdSessionLabel=y"]))
        #expect(uuids(TestJSON.objects(byLabel["samples"]).filter { $0["open"] == nil }) == storedX.union(storedY))

        // stats, hrv and export --session: over the session's span, its series only — the same from the file.
        let stats = try json(try heartctl(["--json", "stats", "--session", xid]))
        let statistics = stats["statistics"] as? [String: Any] ?? [:]
        let expected = stoppedX["statistics"] as? [String: Any] ?? [:]
        #expect((statistics["count"] as? Int ?? 0) > 0, "\(stats)")
        // The session's own statistics count every point in its span, the query only its tagged series: close.
        #expect(abs((TestJSON.double(statistics["average"]) ?? 0) - (TestJSON.double(expected["heartRateAverage"]) ?? -99)) < 5,
                "stats \(statistics) vs the session's \(expected)")
        let explicit = try json(try heartctl(["--json", "stats", "--from", stoppedX["start"] as? String ?? "",
                                              "--to", stoppedX["end"] as? String ?? "", "--meta", "HeartdSession=\(xid)"]))
        let explicitStatistics = explicit["statistics"] as? [String: Any] ?? [:]
        // (the dates on the command line have milliseconds; the session's own have more)
        #expect(explicitStatistics["count"] as? Int == statistics["count"] as? Int, "--session is its span and its tag")
        #expect(abs((TestJSON.double(explicitStatistics["average"]) ?? 0) - (TestJSON.double(statistics["average"]) ?? -9)) < 0.01)
        let offlineStats = try json(try runTool(try BuiltProducts.path("heartctl"), ["--json", "--db", daemon.db, "stats", "--session", xid]))
        #expect(NSDictionary(dictionary: offlineStats["statistics"] as? [String: Any] ?? [:]) == NSDictionary(dictionary: statistics))
        let hrv = try json(try heartctl(["--json", "hrv", "--session", xid]))
        #expect((hrv["count"] as? Int ?? 0) > 0 && hrv["rmssd_ms"] is Double, "\(hrv)")
        let none = try heartctl(["hrv", "--session", zid])
        #expect(none.status == 4, "a session without beats has no HRV: \(none)")
        let exported = try heartctl(["export", "--format", "jsonl", "--session", xid])
        #expect(exported.status == 0, "\(exported)")
        let exportedUUIDs = Set(exported.out.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["uuid"] as? String
        })
        #expect(exportedUUIDs == storedX, "exported \(exportedUUIDs.count), stored in x \(storedX.count)")
        let unknown = try heartctl(["stats", "--session", UUID().uuidString])
        #expect(unknown.status == 4, "\(unknown)")
    }
}
