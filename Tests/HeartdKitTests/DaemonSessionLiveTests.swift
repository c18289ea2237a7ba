import Foundation
import Glibc
import TestBus
import Testing

/// A strap and a second sensor worn together (fake BlueZ, the real daemon, the real heartctl): statistics separated
/// by device, the live statistics of active sessions in `status`, and `watch --session`.
@Suite("sessions live, two sensors worn together", .serialized)
struct DaemonSessionLiveTests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    @Test("stats --by-device: the strap's and the armband's heart rate apart, and together", .timeLimit(.minutes(2)))
    func statsByDevice() async throws {
        let dir = try TestDirectory("by-device")
        defer { dir.remove() }
        let lab = try await TwoSensorLab(dir: dir, settings: ["series.max_duration_seconds=2"])
        defer { lab.stop() }
        try await lab.play(seconds: 8)
        #expect(await lab.everyPlayedValueArrived(), "\(lab.daemon.log())")

        let r = try lab.heartctl(["--json", "stats", "--from", "-5m", "--by-device"])
        #expect(r.status == 0, "\(r)")
        let result = try json(r.out)
        let devices = (result["devices"] as? [[String: Any]] ?? []).reduce(into: [String: [String: Any]]()) {
            $0[$1["device"] as? String ?? "?"] = $1["statistics"] as? [String: Any]
        }
        #expect(Set(devices.keys) == [TwoSensorLab.strap, TwoSensorLab.armband], "\(r.out)")
        let strap = devices[TwoSensorLab.strap] ?? [:], armband = devices[TwoSensorLab.armband] ?? [:]
        #expect(strap["average"] as? Double == 120 && strap["minimum"] as? Double == 120 && strap["maximum"] as? Double == 120, "\(strap)")
        #expect(armband["average"] as? Double == 60 && armband["maximum"] as? Double == 60, "\(armband)")
        #expect((strap["count"] as? Int ?? 0) > 3 && (armband["count"] as? Int ?? 0) > 1)
        let all = result["statistics"] as? [String: Any] ?? [:]
        #expect(all["count"] as? Int == (strap["count"] as? Int ?? 0) + (armband["count"] as? Int ?? 0), "\(all)")
        #expect(all["minimum"] as? Double == 60 && all["maximum"] as? Double == 120)

        // --device narrows it to one; the table names each device.
        let one = try json(try lab.heartctl(["--json", "stats", "--from", "-5m", "--by-device", "--device", TwoSensorLab.armband]).out)
        #expect((one["devices"] as? [[String: Any]])?.map { $0["device"] as? String } == [TwoSensorLab.armband])
        let table = try lab.heartctl(["stats", "--from", "-5m", "--by-device", "--interval", "1h"])
        #expect(table.status == 0 && table.out.contains(TwoSensorLab.strap) && table.out.contains(TwoSensorLab.armband), "\(table)")
    }

    @Test("status shows active sessions with live statistics; watch --session follows its devices and ends with it",
          .timeLimit(.minutes(2)))
    func liveStatisticsAndWatchSession() async throws {
        let dir = try TestDirectory("live-session")
        defer { dir.remove() }
        let lab = try await TwoSensorLab(dir: dir)
        defer { lab.stop() }
        let started = try lab.heartctl(["session", "start", "--label", "strap-only", "--device", TwoSensorLab.strap.lowercased()])
        #expect(started.status == 0, "\(started)")
        let strapOnly = started.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let everyone = try lab.heartctl(["session", "start", "--label", "both"]).out.trimmingCharacters(in: .whitespacesAndNewlines)

        // `heartctl watch --session` in the background, as a person would run it.
        let watchOut = dir.file("watch.out")
        _ = FileManager.default.createFile(atPath: watchOut, contents: nil)
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: try BuiltProducts.path("heartctl"))
        watch.arguments = ["--socket", lab.daemon.socket, "--json", "watch", "--session", strapOnly]
        watch.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: watchOut))
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        // Until the watch is subscribed, so that it sees every value played.
        let client = try lab.daemon.client()
        #expect(await eventually { try client.callObject("status")["watchers"] as? Int ?? 0 >= 1 })

        try await lab.play(seconds: 6)
        #expect(await lab.everyPlayedValueArrived(), "\(lab.daemon.log())")
        let status = try json(try lab.heartctl(["--json", "status"]).out)
        let sessions = (status["sessions"] as? [[String: Any]] ?? []).reduce(into: [String: [String: Any]]()) {
            $0[$1["uuid"] as? String ?? "?"] = $1
        }
        let a = try #require(sessions[strapOnly], "\(status["sessions"] ?? "none")")
        let b = try #require(sessions[everyone])
        // The strap alone: ~2 beats a second at exactly 120 bpm, every RR 0.5 s, so RMSSD 0.
        #expect((8...13).contains(a["beats"] as? Int ?? 0), "\(a)")
        #expect(a["currentBPM"] as? Double == 120 && a["averageBPM"] as? Double == 120, "\(a)")
        #expect((a["rmssdMs"] as? Double).map { $0 < 0.01 } == true, "\(a)")
        #expect((a["elapsed_s"] as? Double ?? 0) >= 6)
        // Both sensors: the armband's beats too, and a time-weighted average between them (never one RR across two).
        #expect((b["beats"] as? Int ?? 0) >= (a["beats"] as? Int ?? 0) + 4, "\(b)")
        #expect((b["averageBPM"] as? Double).map { $0 > 60 && $0 < 120 } == true, "\(b)")
        #expect((b["rmssdMs"] as? Double).map { $0 < 0.01 } == true, "\(b)")
        let text = try lab.heartctl(["status"])
        #expect(text.out.contains("strap-only") && text.out.contains("RMSSD"), "\(text.out)")

        let stopped = try lab.heartctl(["session", "stop", strapOnly])
        #expect(stopped.status == 0, "\(stopped)")
        let deadline = Date().addingTimeInterval(5)
        while watch.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!watch.isRunning, "watch --session did not end with its session")
        #expect(watch.terminationStatus == 0)
        let events = try String(contentsOfFile: watchOut, encoding: .utf8).split(separator: "\n").map { try json(String($0)) }
        let rates = events.filter { $0["event"] as? String == "heart-rate" }
        #expect(!rates.isEmpty && rates.allSatisfy { $0["device"] as? String == TwoSensorLab.strap }, "\(events)")
        #expect(events.last?["event"] as? String == "session-ended" && events.last?["session"] as? String == strapOnly)
        let after = try json(try lab.heartctl(["--json", "status"]).out)
        #expect((after["sessions"] as? [[String: Any]])?.map { $0["uuid"] as? String } == [everyone])
        // An ended session cannot be watched.
        let late = try lab.heartctl(["watch", "--session", strapOnly])
        #expect(late.status == 1 && late.err.contains("has ended"), "\(late)")
    }
}
