import Foundation
import TestBus
import Testing

/// Bad requests get the right error code (or a clean close) and never disturb capture.
@Suite("heartd control socket: bad input")
struct DaemonBadInputTests {
    @Test("not JSON, unknown methods and wrong param types get typed errors; the connection and capture go on")
    func typedErrors() async throws {
        let dir = try TestDirectory("badin")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20)
        defer { daemon.stop() }
        let client = try daemon.client()
        let beatsBefore = TestJSON.beats(inStatus: try client.callObject("status"))

        try client.writeLine("this is not json")
        let notJSON = RawControlClient.Response(object: try #require(try client.readObject()))
        #expect(notJSON.errorCode == "parse-error")
        #expect(notJSON.object["id"] is NSNull)
        try client.writeLine("[1, 2, 3]")
        #expect(RawControlClient.Response(object: try #require(try client.readObject())).errorCode == "invalid-request")
        try client.writeLine(#"{"id": 7, "method": "series", "params": [1]}"#)
        let badParams = RawControlClient.Response(object: try #require(try client.readObject()))
        #expect(badParams.errorCode == "invalid-params")
        #expect(badParams.id == 7)

        #expect(try client.request("no-such-method").errorCode == "unknown-method")
        #expect(try client.request("series", ["limit": "many"]).errorCode == "invalid-params")
        #expect(try client.request("series", ["type": "blood-pressure"]).errorCode == "invalid-params")
        #expect(try client.request("show", ["uuid": 5]).errorCode == "invalid-params")
        #expect(try client.request("show", ["uuid": "not-a-uuid"]).errorCode == "invalid-params")
        #expect(try client.request("show").errorCode == "invalid-params")
        #expect(try client.request("show", ["uuid": UUID().uuidString]).errorCode == "not-found")
        #expect(try client.request("beats", ["uuid": UUID().uuidString]).errorCode == "not-found")
        #expect(try client.request("hrv", ["uuid": UUID().uuidString]).errorCode == "not-found")
        #expect(try client.request("stats", ["from": "yesterday-ish"]).errorCode == "invalid-params")
        #expect(try client.request("stats", ["from": "2026-01-02", "to": "2026-01-01"]).errorCode == "invalid-params")
        #expect(try client.request("stats", ["interval": -5]).errorCode == "invalid-params")
        #expect(try client.request("stats", ["interval": "hourly"]).errorCode == "invalid-params")
        #expect(try client.request("changes", ["anchor": 1.5]).errorCode == "invalid-params")
        #expect(try client.request("quantities", ["type": 3]).errorCode == "invalid-params")
        #expect(try client.request("delete", ["uuid": []]).errorCode == "invalid-params")
        #expect(try client.request("watch", ["device": 12]).errorCode == "invalid-params")
        #expect(try client.request("export", ["device": 12]).errorCode == "invalid-params")

        // Still the same connection, still capturing.
        #expect(try client.callObject("hello")["protocol"] as? String == "heartd-control/1")
        let status = try daemon.client()
        #expect(await eventually { TestJSON.beats(inStatus: try status.callObject("status")) > beatsBefore })
    }

    @Test("an oversize line gets line-too-long and the connection closes; others are unaffected")
    func oversizeLine() async throws {
        let dir = try TestDirectory("oversize")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20, settings: ["control.max_line_bytes=4096"])
        defer { daemon.stop() }
        let bystander = try daemon.client()
        let before = TestJSON.beats(inStatus: try bystander.callObject("status"))
        let client = try daemon.client()
        let huge = #"{"id": 1, "method": "status", "params": {"pad": ""# + String(repeating: "x", count: 20_000) + #""}}"#
        try? client.writeLine(huge)  // the server may close while we are still writing
        let response = try #require(try client.readObject())
        #expect(RawControlClient.Response(object: response).errorCode == "line-too-long")
        #expect(try client.readLine(timeout: 5) == nil, "closed after line-too-long")
        #expect(await eventually { TestJSON.beats(inStatus: try bystander.callObject("status")) > before })
    }

    @Test("a watcher that never reads is dropped; capture keeps its pace meanwhile", .timeLimit(.minutes(1)))
    func nonReadingWatcher() throws {
        let dir = try TestDirectory("noread")
        defer { dir.remove() }
        // Unthrottled simulator: enough events to fill the socket buffer and the 4 MiB outgoing bound quickly.
        let daemon = try DaemonProcess(dir: dir, speed: 100_000)
        defer { daemon.stop() }
        let observer = try daemon.client()
        let stuck = try daemon.client()
        try stuck.writeLine(#"{"id": 1, "method": "watch"}"#)
        var last = TestJSON.beats(inStatus: try observer.callObject("status"))
        var dropped = false
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            usleep(250_000)  // a poll: each turn also checks that capture went on meanwhile
            let status = try observer.callObject("status")
            let beats = TestJSON.beats(inStatus: status)
            #expect(beats > last, "capture continues while a watcher is stuck")
            last = beats
            if status["watchers"] as? Int == 0 { dropped = true; break }
        }
        #expect(dropped, "the stuck watcher was dropped within 30 s")
        // What it did get ends with a clean close (EOF), not a hang.
        var lines = 0
        while let _ = try stuck.readLine(timeout: 10) { lines += 1 }
        #expect(lines > 0)
        #expect(daemon.process.isRunning)
    }
}
