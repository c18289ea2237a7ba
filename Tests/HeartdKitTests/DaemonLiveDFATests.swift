import Foundation
import Glibc
import TestBus
import Testing

/// Live DFA α1 end to end: the real daemon's simulated strap (a real RR recording at 20× speed) yields `dfa-alpha1`
/// events in `watch`, the latest reading in `status.sessions[].dfaAlpha1`, and heartctl prints both.
@Suite("live DFA α1 in watch and status", .serialized)
struct DaemonLiveDFATests {
    @Test("a simulated RR stream yields DFA α1 every 5 s of beat time in watch, status and heartctl",
          .timeLimit(.minutes(2)))
    func alpha1InWatchAndStatus() async throws {
        let dir = try TestDirectory("live-dfa")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20)
        defer { daemon.stop() }
        let heartctl = try BuiltProducts.path("heartctl")
        let session = try runTool(heartctl, ["--socket", daemon.socket, "session", "start", "--label", "ride"])
        #expect(session.status == 0, "\(session)")
        let uuid = session.out.trimmingCharacters(in: .whitespacesAndNewlines)

        // `heartctl watch` as a person runs it, in the background.
        let watchOut = dir.file("watch.out")
        _ = FileManager.default.createFile(atPath: watchOut, contents: nil)
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: heartctl)
        watch.arguments = ["--socket", daemon.socket, "watch"]
        watch.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: watchOut))
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }

        // The raw events: a reading every 5 s of beat time (0.25 s here), until the 2-minute window is full.
        let watcher = try daemon.client()
        #expect(try watcher.request("watch").errorCode == nil)
        var readings: [[String: Any]] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !(readings.last?["window_full"] as? Bool ?? false) {
            readings.append(try watcher.readEvent(timeout: 10) { $0["event"] as? String == "dfa-alpha1" })
        }
        let full = try #require(readings.last, "no dfa-alpha1 event:\n\(daemon.log())")
        #expect(full["window_full"] as? Bool == true, "\(full)")
        #expect(full["device"] as? String == "00:00:00:00:00:00")
        #expect(full["state"] as? String == "measured", "\(full)")
        // A resting recording: α1 near 1 (well inside 0.3…1.7), few artifacts, ~2 minutes of intervals.
        #expect((full["alpha1"] as? Double).map { $0 > 0.3 && $0 < 1.7 } == true, "\(full)")
        #expect((full["artifact_pct"] as? Double).map { $0 <= 5 } == true, "\(full)")
        #expect((full["intervals"] as? Int).map { $0 > 100 && $0 < 250 } == true, "\(full)")
        // Every 5 s of beat time, stamped with the notification's last beat: successive readings 5 s apart, give or
        // take the beats that reach the monitor together — one notification's, or up to four after a suspect slot
        // (the timeline holds up to three back: docs/INGEST.md, "Holding back").
        let times = readings.compactMap { TestJSON.date($0["at"]) }
        for (a, b) in zip(times, times.dropFirst()) {
            #expect(b.timeIntervalSince(a) >= 1 && b.timeIntervalSince(a) < 10, "\(a) → \(b)")
        }

        // status: the session carries its device's latest reading.
        let client = try daemon.client()
        var dfa: [String: Any] = [:]
        #expect(await eventually(timeout: 10) {
            let sessions = try client.callObject("status")["sessions"] as? [[String: Any]] ?? []
            dfa = TestJSON.objects(sessions.first { $0["uuid"] as? String == uuid }?["dfaAlpha1"]).first ?? [:]
            return dfa["state"] as? String == "measured"
        }, "\(dfa)")
        #expect((dfa["alpha1"] as? Double).map { $0 > 0.3 && $0 < 1.7 } == true, "\(dfa)")
        let status = try runTool(heartctl, ["--socket", daemon.socket, "status"])
        #expect(status.status == 0 && status.out.contains("DFA α1"), "\(status)")
        #expect(status.out.range(of: #"\d\.\d\d \(\d+\.\d %\)"#, options: .regularExpression) != nil, "\(status.out)")

        // heartctl watch printed readings as lines of their own.
        #expect(await eventually(timeout: 10) {
            let text = (try? String(contentsOfFile: watchOut, encoding: .utf8)) ?? ""
            return text.range(of: #"00:00:00:00:00:00  DFA α1 \d\.\d\d \(artifacts \d+\.\d %\)"#,
                              options: .regularExpression) != nil
        })
    }
}
