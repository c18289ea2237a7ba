import Foundation
import Glibc
import TestBus
import Testing

/// Sessions against a running daemon (the simulator as source), started and stopped with heartctl as a lab
/// script would. The simulator runs at real-time speed: sessions are timed on the daemon's wall clock, and a faster
/// simulator dates its beats ahead of it.
@Suite("sessions against a running daemon", .serialized)
struct DaemonSessionTests {
    let settings = ["series.max_duration_seconds=2"]

    func heartctl(_ daemon: DaemonProcess, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try runTool(try BuiltProducts.path("heartctl"), ["--socket", daemon.socket] + arguments)
    }

    /// Waits until a heartbeat series that starts after `date` is stored.
    func waitForSeries(_ client: RawControlClient, after date: String, timeout: TimeInterval = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let r = try client.callObject("series", ["type": "heartbeat", "from": date])
            let samples = r["samples"] as? [[String: Any]] ?? []
            if samples.contains(where: { ($0["start"] as? String ?? "") >= date }) { return }
            usleep(100_000)
        }
        throw DaemonProcess.Failure(description: "no heartbeat series stored after \(date)")
    }

    /// The heartbeat series stored between `from` and `to`, as (start, end, session tag).
    func seriesTags(_ client: RawControlClient, from: String, to: String) throws -> [(start: String, end: String, tag: String?)] {
        let r = try client.callObject("series", ["type": "heartbeat", "from": from, "to": to])
        return (r["samples"] as? [[String: Any]] ?? []).map {
            ($0["start"] as? String ?? "", $0["end"] as? String ?? "", ($0["metadata"] as? [String: Any])?["HeartdSession"] as? String)
        }
    }

    @Test("start → beats → stop: the statistics are stored; stop without a session is not-found", .timeLimit(.minutes(2)))
    func startStopStoresStatistics() throws {
        let dir = try TestDirectory("session")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 1, settings: settings)
        let client = try daemon.client()

        let none = try heartctl(daemon, ["session", "stop"])
        #expect(none.status == 4 && none.err.contains("no active session"), "\(none)")
        let badMeta = try heartctl(daemon, ["session", "start", "--meta", "novalue"])
        #expect(badMeta.status == 2, "\(badMeta)")

        let started = try heartctl(daemon, ["session", "start", "--label", "block A", "--meta", "subject=S01"])
        #expect(started.status == 0, "\(started)")
        let uuid = started.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: uuid) != nil, "prints the UUID: \(started.out)")
        let shown = try client.callObject("session.show", ["uuid": uuid])
        #expect(shown["label"] as? String == "block A" && shown["end"] == nil)
        #expect((shown["metadata"] as? [String: String]) == ["subject": "S01"])
        try waitForSeries(client, after: shown["start"] as? String ?? "")

        let stopped = try heartctl(daemon, ["--json", "session", "stop"])
        #expect(stopped.status == 0, "\(stopped)")
        let final = try client.callObject("session.show", ["uuid": uuid])
        let stats = final["statistics"] as? [String: Any] ?? [:]
        #expect(final["end"] is String)
        #expect((stats["beats"] as? Int ?? 0) > 0, "\(final)")
        #expect(stats["heartRateAverage"] is Double && stats["durationSeconds"] is Double, "\(final)")
        // Every series that starts inside the session carries its UUID. Rotation happens when the session starts, so
        // a tagged series may begin with beats that occurred up to one notification (plus slack) before it.
        let start = final["start"] as? String ?? "", end = final["end"] as? String ?? ""
        let series = try seriesTags(client, from: start, to: end)
        #expect(series.contains { $0.tag == uuid })
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let startDate = try #require(iso.date(from: start))
        for s in series {
            let sStart = try #require(iso.date(from: s.start))
            if s.start >= start && s.end <= end { #expect(s.tag == uuid, "series \(s) in session \(start) – \(end)") }
            if s.tag == uuid { #expect(sStart.timeIntervalSince(startDate) > -2.5, "series \(s) tagged long before \(start)") }
        }
        let bySession = try heartctl(daemon, ["--json", "series", "--type", "heartbeat", "--session", uuid])
        let listedSeries = (try JSONSerialization.jsonObject(with: Data(bySession.out.utf8)) as? [String: Any])?["samples"] as? [Any]
        #expect(bySession.status == 0 && listedSeries?.count == series.count, "\(bySession)")
        let byMeta = try heartctl(daemon, ["--json", "series", "--meta", "HeartdSessionLabel=block A"])
        #expect(byMeta.status == 0 && byMeta.out.contains(uuid) && !byMeta.out.contains("\"HeartdSessionLabel\":\"other"), "\(byMeta)")
        let listed = try heartctl(daemon, ["sessions", "--label", "block A"])
        #expect(listed.status == 0 && listed.out.contains(uuid), "\(listed)")
        let active = try client.callObject("sessions", ["active": true])
        #expect((active["sessions"] as? [Any])?.isEmpty == true)
        let again = try heartctl(daemon, ["session", "stop", uuid])
        #expect(again.status == 1 && again.err.contains("already ended"), "\(again)")
    }

    @Test("a session's own metadata goes on its series: series and stats --meta find them", .timeLimit(.minutes(2)))
    func sessionMetadataOnItsSeries() throws {
        let dir = try TestDirectory("session-meta")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 1, settings: settings)
        let client = try daemon.client()
        let started = try heartctl(daemon, ["session", "start", "--label", "r7", "--meta", "game=round-7",
                                            "--meta", "HKMetadataKeyTimeZone=lab-r7"])
        #expect(started.status == 0, "\(started)")
        let uuid = started.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try client.callObject("session.show", ["uuid": uuid])
        try waitForSeries(client, after: shown["start"] as? String ?? "")
        // While the session is active the open series already carry the key (status' open series are filtered too).
        let stopped = try heartctl(daemon, ["--json", "session", "stop", uuid])
        #expect(stopped.status == 0, "\(stopped)")

        let byMeta = try heartctl(daemon, ["--json", "series", "--type", "heartbeat", "--meta", "game=round-7"])
        let found = (try JSONSerialization.jsonObject(with: Data(byMeta.out.utf8)) as? [String: Any])?["samples"] as? [[String: Any]] ?? []
        #expect(byMeta.status == 0 && !found.isEmpty, "\(byMeta)")
        for s in found {
            let meta = s["metadata"] as? [String: Any] ?? [:]
            #expect(meta["game"] as? String == "round-7" && meta["HeartdSession"] as? String == uuid, "\(s)")
            #expect(meta["HKMetadataKeyTimeZone"] as? String != "lab-r7", "the session's reserved keys stay on the session")
        }
        let bySession = try heartctl(daemon, ["--json", "series", "--type", "heartbeat", "--session", uuid])
        let sessionSeries = (try JSONSerialization.jsonObject(with: Data(bySession.out.utf8)) as? [String: Any])?["samples"] as? [Any]
        #expect(sessionSeries?.count == found.count, "every series of the session, and only those: \(bySession)")
        let none = try heartctl(daemon, ["--json", "series", "--type", "heartbeat", "--meta", "game=round-8"])
        #expect(none.status == 0 && !none.out.contains(uuid), "\(none)")

        let stats = try heartctl(daemon, ["--json", "stats", "--meta", "game=round-7"])
        let statistics = (try JSONSerialization.jsonObject(with: Data(stats.out.utf8)) as? [String: Any])?["statistics"] as? [String: Any]
        #expect(stats.status == 0 && (statistics?["count"] as? Int ?? 0) > 0, "\(stats)")
        let otherStats = try heartctl(daemon, ["--json", "stats", "--meta", "game=round-8"])
        let otherStatistics = (try JSONSerialization.jsonObject(with: Data(otherStats.out.utf8)) as? [String: Any])?["statistics"] as? [String: Any]
        #expect(otherStats.status == 0 && (otherStatistics?["count"] as? Int ?? 0) == 0, "\(otherStats)")
    }

    @Test("two overlapping sessions on different devices; stop without a UUID names both", .timeLimit(.minutes(2)))
    func overlappingSessionsOnDifferentDevices() throws {
        let dir = try TestDirectory("session2")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 1, settings: settings)
        let client = try daemon.client()
        try waitForSeries(client, after: "2000-01-01T00:00:00Z")
        let any = try client.callObject("series", ["type": "heartbeat"])
        let sample = (any["samples"] as? [[String: Any]])?.first
        let simulated = try #require((sample?["device"] as? [String: Any])?["localIdentifier"] as? String)
        let other = "11:22:33:44:55:66" // not connected: a session can be started ahead for it

        let a = try client.callObject("session.start", ["label": "strap", "devices": [simulated]])
        let b = try client.callObject("session.start", ["label": "armband", "devices": [other.lowercased()]])
        #expect(b["devices"] as? [String] == [other])
        let ambiguous = try heartctl(daemon, ["session", "stop"])
        #expect(ambiguous.status == 1, "\(ambiguous)")
        for s in [a, b] { #expect(ambiguous.err.contains(s["uuid"] as? String ?? "?"), "\(ambiguous)") }
        try waitForSeries(client, after: a["start"] as? String ?? "")

        let stoppedA = try client.callObject("session.stop", ["uuid": a["uuid"] as? String ?? ""])
        let stoppedB = try client.callObject("session.stop", ["uuid": b["uuid"] as? String ?? ""])
        #expect(((stoppedA["statistics"] as? [String: Any])?["beats"] as? Int ?? 0) > 0, "\(stoppedA)")
        #expect((stoppedB["statistics"] as? [String: Any])?["beats"] as? Int == 0, "\(stoppedB)")
    }

    @Test("an active session survives kill -9 and SIGTERM and stops after the restart", .timeLimit(.minutes(2)))
    func activeSessionSurvivesKillAndTerm() throws {
        let dir = try TestDirectory("session-kill")
        defer { dir.remove() }
        let db = dir.file("heart.db")
        let first = try DaemonProcess(dir: dir, db: db, speed: 1, settings: settings, logSuffix: "-1")
        let s = try first.client().callObject("session.start", ["label": "night"])
        let uuid = s["uuid"] as? String ?? ""
        first.signal(SIGKILL)
        #expect(first.waitForExit(timeout: 5))

        let second = try DaemonProcess(dir: dir, db: db, speed: 1, settings: settings, logSuffix: "-2")
        let active = try second.client().callObject("sessions", ["active": true])
        #expect((active["sessions"] as? [[String: Any]])?.map { $0["uuid"] as? String } == [uuid], "\(active)")
        second.stop() // SIGTERM does not end a session

        let third = try DaemonProcess(dir: dir, db: db, speed: 1, settings: settings, logSuffix: "-3")
        let client = try third.client()
        let still = try client.callObject("session.show", ["uuid": uuid])
        #expect(still["end"] == nil, "\(still)")
        try waitForSeries(client, after: s["start"] as? String ?? "")
        let stopped = try client.callObject("session.stop", ["uuid": uuid])
        #expect(((stopped["statistics"] as? [String: Any])?["beats"] as? Int ?? 0) > 0, "\(stopped)")
        // After the restarts the session kept tagging: the last series before the stop carries it.
        let tagged = try seriesTags(client, from: s["start"] as? String ?? "", to: stopped["end"] as? String ?? "")
        #expect(tagged.last?.tag == uuid, "\(tagged)")
        #expect(try integrityCheck(db) == "ok")
    }

    @Test("with series.end_sessions_on_shutdown a SIGTERM ends the active sessions", .timeLimit(.minutes(2)))
    func sigtermEndsSessionsWhenConfigured() throws {
        let dir = try TestDirectory("session-term")
        defer { dir.remove() }
        let db = dir.file("heart.db")
        let configured = settings + ["series.end_sessions_on_shutdown=true"]
        let first = try DaemonProcess(dir: dir, db: db, speed: 1, settings: configured, logSuffix: "-1")
        let s = try first.client().callObject("session.start", ["label": "class"])
        try waitForSeries(try first.client(), after: s["start"] as? String ?? "")
        first.stop()
        let second = try DaemonProcess(dir: dir, db: db, speed: 1, settings: configured, logSuffix: "-2")
        let ended = try second.client().callObject("session.show", ["uuid": s["uuid"] as? String ?? ""])
        #expect(ended["end"] is String, "\(ended)")
        #expect(((ended["statistics"] as? [String: Any])?["beats"] as? Int ?? 0) > 0, "\(ended)")
    }
}
