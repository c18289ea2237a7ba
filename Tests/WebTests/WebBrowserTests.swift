import Foundation
import Glibc
import Testing
import TestBus

/// heartd (--simulate, or capturing the fake BlueZ's sensors), heartd-web and the room page in headless Chromium
/// (Selenium, Browser/room_check.py).
@Suite(.serialized) struct WebBrowserTests {

    /// The two services and the paths a browser check needs; `stop()` ends them.
    final class Stack {
        let dir: String
        let heartd: WebProcess
        let web: WebProcess
        let url: String
        let socket: String

        /// heartd runs with `capture` (default: its simulated sensor) and `environment` added to its own.
        init(capture: [String] = ["--simulate", "--simulate-speed", "1"], environment: [String: String] = [:]) async throws {
            dir = "/tmp/hw-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            socket = dir + "/control.sock"
            let config = dir + "/heartd.toml"
            try """
            [web]
            port = 0
            hrmax = 150
            viewer_token_file = "\(dir)/token"
            coach_password_file = "\(dir)/coach"
            """.write(toFile: config, atomically: true, encoding: .utf8)
            try "\(BrowserScript.token)\n".write(toFile: dir + "/token", atomically: true, encoding: .utf8)
            let hash = try WebBrowserTests.run(try BuiltProducts.path("heartd-web"), ["hash-password", "--cost", "6"], input: BrowserScript.password)
            try hash.write(toFile: dir + "/coach", atomically: true, encoding: .utf8)
            heartd = try WebProcess(try BuiltProducts.path("heartd"),
                                    capture + ["--db", dir + "/heart.db", "--socket", socket,
                                               "--config", config, "--set", "control.group=\"\"", "--log-target", "stderr"],
                                    log: dir + "/heartd.log", environment: environment)
            let socket = socket
            guard await eventually(timeout: 20, { FileManager.default.fileExists(atPath: socket) }) else {
                throw WebTestFailure("heartd did not open its socket:\n\(heartd.output)")
            }
            web = try WebProcess(try BuiltProducts.path("heartd-web"),
                                 ["--config", config, "--socket", socket, "--log-target", "stderr"], log: dir + "/web.log")
            let web = web
            guard await eventually(timeout: 20, { web.output.contains("room page at http://") }),
                  let match = web.output.firstMatch(of: /room page at (http:\/\/[0-9.:]+)\//) else {
                throw WebTestFailure("heartd-web did not start:\n\(web.output)")
            }
            url = String(match.1)
        }

        func browse(_ checks: [String], extra: [String] = []) async throws -> String {
            try await BrowserScript.run(url: url, checks, extra: extra) {
                "--- heartd-web:\n\(self.web.output.suffix(3000))\n--- heartd:\n\(self.heartd.output.suffix(2000))"
            }
        }

        func stop() {
            web.stop()
            heartd.stop()
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    @Test func aCoachStartsASessionFromThePageAndAViewerCannot() async throws {
        let stack = try await Stack()
        defer { stack.stop() }
        let results = try await stack.browse(["coach", "viewer", "crosssite"])
        #expect(results.contains(#""failed": []"#))
        let (status, sessions) = try await Self.runStatus(try BuiltProducts.path("heartctl"), ["sessions", "--socket", stack.socket])
        #expect(status == 0)
        // The coach's session is there, its label intact; neither the viewer's nor the cross-site one is.
        #expect(sessions.contains("round 7"))
        #expect(sessions.contains("<script>window.__xss=2</script>") || sessions.contains("\\u003cscript"))
        #expect(!sessions.contains("\"viewer\"") && !sessions.contains("cross-site"))
    }

    /// The whole live path: heartd's simulated sensor → `watch` → `LiveFeed` → heartd-web → WebSocket → the tile, whose
    /// heart rate changes and whose % HRmax and zone colour agree with it.
    @Test func aTileFollowsTheSimulatedSensorThroughHeartd() async throws {
        let stack = try await Stack()
        defer { stack.stop() }
        let results = try await stack.browse(["live"])
        #expect(results.contains(#""failed": []"#), "\(results)")
    }

    /// A session of heartd's simulated sensor, started and stopped with heartctl, on the Sessions page: its report
    /// opens sandboxed and its CSV export downloads through the browser.
    @Test func aFinishedSessionsReportOpensAndItsExportDownloads() async throws {
        let stack = try await Stack()
        defer { stack.stop() }
        let heartctl = try BuiltProducts.path("heartctl")
        let (started, out) = try await Self.runStatus(heartctl, ["--socket", stack.socket, "session", "start", "--label", "web <b>report</b>"])
        #expect(started == 0, "\(out)")
        let uuid = try #require(out.split(separator: "\n").last.flatMap { UUID(uuidString: String($0)) }, "\(out)")
        // Ten beats or more in the session (the simulated sensor beats about once a second), from status's live
        // statistics: `session show` of a running session reads only the store's finished series.
        #expect(await eventually(timeout: 60, every: .milliseconds(500)) {
            let (_, shown) = try await Self.runStatus(heartctl, ["--socket", stack.socket, "status", "--json"])
            let object = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any]
            let sessions = object?["sessions"] as? [[String: Any]] ?? []
            return sessions.contains { $0["uuid"] as? String == uuid.uuidString && ($0["beats"] as? Int ?? 0) >= 10 }
        })
        let (stopped, stopOut) = try await Self.runStatus(heartctl, ["--socket", stack.socket, "session", "stop"])
        #expect(stopped == 0, "\(stopOut)")
        let results = try await stack.browse(["sessions"], extra: ["--session", uuid.uuidString])
        #expect(results.contains(#""failed": []"#), "\(results)")
    }

    /// People: a coach adds a person named with HTML and script, assigns the simulated strap to them, and the room
    /// tile shows the name as text with % of their HRmax (heartd → `people-changed` → LiveFeed's status → the tile); a
    /// viewer reads the list and gets 403 on every change.
    @Test func aCoachNamesTheStrapsWearerAndTheTileShowsItEscaped() async throws {
        let stack = try await Stack()
        defer { stack.stop() }
        let heartctl = try BuiltProducts.path("heartctl")
        var address = ""
        #expect(await eventually(timeout: 20) {
            let (status, out) = try await Self.runStatus(heartctl, ["--json", "status", "--socket", stack.socket])
            let object = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any]
            address = ((object?["devices"] as? [[String: Any]])?.first?["address"] as? String) ?? ""
            return status == 0 && !address.isEmpty
        })
        let results = try await stack.browse(["people", "peopleviewer"], extra: ["--device", address])
        #expect(results.contains(#""failed": []"#), "\(results)")
        let (status, people) = try await Self.runStatus(heartctl, ["people", "list", "--json", "--socket", stack.socket])
        #expect(status == 0 && people.contains(address) && people.contains("\"heartRateMaximum\":160"), "\(people)")
        #expect(!people.contains("viewer"), "a viewer's person is not there: \(people)")
    }

    @Test func theOverlayIsTransparent() async throws {
        let stack = try await Stack()
        defer { stack.stop() }
        let results = try await stack.browse(["overlay"], extra: ["--device", "00:00:00:00:00:00"])
        #expect(results.contains(#""html": "rgba(0, 0, 0, 0)""#))
    }

    @Test func aNonLoopbackBindWithoutACredentialIsRefusedAtStart() async throws {
        let config = "/tmp/hw-bind-\(UUID().uuidString.prefix(8)).toml"
        try "".write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let web = try WebProcess(try BuiltProducts.path("heartd-web"),
                                 ["--config", config, "--set", "web.host=\"0.0.0.0\"", "--set", "web.port=0", "--log-target", "stderr"],
                                 log: "/tmp/hw-bind-\(UUID().uuidString.prefix(8)).log")
        defer { try? FileManager.default.removeItem(atPath: web.logPath) }
        let status = await web.exitStatus(timeout: 20)
        #expect(status == 65)
        #expect(web.output.contains("not loopback and no credential is configured"))
    }

    /// Runs a tool with `input` on stdin; its standard output (trimmed).
    static func run(_ path: String, _ arguments: [String], input: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(Data((input + "\n").utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func runStatus(_ path: String, _ arguments: [String]) async throws -> (Int32, String) {
        let log = "/tmp/hw-tool-\(UUID().uuidString.prefix(8)).out"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let tool = try WebProcess(path, arguments, log: log)
        guard await tool.waitForExit(timeout: 30) else { throw WebTestFailure("\(path) hung") }
        return (tool.process.terminationStatus, tool.output)
    }
}
