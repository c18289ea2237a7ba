import Foundation
import Glibc
import HeartStore
import TestBus
import Testing

/// heartctl as an operator meets it: the documented exit statuses, and `--json` streams that reach a pipe line by
/// line (`heartctl watch --json | jq`).
@Suite(.serialized) struct HeartctlExitStatusTests {
    func heartctl(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try runTool(try BuiltProducts.path("heartctl"), arguments)
    }

    @Test func eachDocumentedExitStatus() throws {
        let dir = try TestDirectory("heartctl-exit")
        defer { dir.remove() }
        let db = dir.file("store.sqlite")
        _ = try HeartDatabase(path: db)  // an empty store with the schema

        let ok = try heartctl(["decode", "0048"])
        #expect(ok.status == 0, "\(ok)")
        let invalid = try heartctl(["decode", "zz"])
        #expect(invalid.status == 1, "an invalid payload: \(invalid)")
        let usage = try heartctl(["series", "--no-such-option"])
        #expect(usage.status == 2, "a usage error: \(usage)")
        #expect(usage.err.contains("Usage:"))
        let missing = try heartctl(["show"])
        #expect(missing.status == 2, "a missing argument is a usage error: \(missing)")
        let unreachable = try heartctl(["--socket", dir.file("nobody-here.sock"), "status"])
        #expect(unreachable.status == 3, "\(unreachable)")
        let notFound = try heartctl(["--db", db, "show", UUID().uuidString])
        #expect(notFound.status == 4, "\(notFound)")
        let needsDaemon = try heartctl(["--db", db, "status"])
        #expect(needsDaemon.status == 6, "\(needsDaemon)")
        let help = try heartctl(["--help"])
        #expect(help.status == 0 && help.out.contains("2 usage error"))
    }

    /// `heartctl status` reads the daemon's typed status (`DaemonStatus`): the table shows the simulated sensor.
    @Test func statusShowsTheDaemonsTypedStatus() throws {
        let dir = try TestDirectory("heartctl-status")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20)
        defer { daemon.stop() }
        var result = try heartctl(["--socket", daemon.socket, "status"])
        let deadline = Date().addingTimeInterval(10)
        while !result.out.contains(" connected "), Date() < deadline {  // until the simulator's sensor is there
            usleep(200_000)
            result = try heartctl(["--socket", daemon.socket, "status"])
        }
        #expect(result.status == 0, "\(result)")
        #expect(result.out.hasPrefix("heartd ") && result.out.contains("(pid \(daemon.pid), simulate)"), "\(result.out)")
        #expect(result.out.contains("store: \(daemon.db)"))
        #expect(result.out.contains("DEVICE") && result.out.contains(" connected "), "\(result.out)")
        let json = try heartctl(["--socket", daemon.socket, "status", "--json"])
        #expect(json.status == 0 && json.out.contains("\"capture\":{\"source\":\"simulator\"}"), "\(json.out)")
    }

    /// Exit status 5 needs a caller outside the socket's group: `DaemonPermissionTests` runs heartctl as another uid.
    @Test func watchJSONReachesAPipeLineByLine() throws {
        let dir = try TestDirectory("heartctl-watch-pipe")
        defer { dir.remove() }
        // Real time: one notification a second, so a block-buffered stdout would hold the lines for minutes.
        let daemon = try DaemonProcess(dir: dir, speed: 1)
        defer { daemon.stop() }
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: try BuiltProducts.path("heartctl"))
        watch.arguments = ["--socket", daemon.socket, "watch", "--json"]
        let pipe = Pipe()
        watch.standardOutput = pipe
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer { watch.terminate(); watch.waitUntilExit() }
        let fd = pipe.fileHandleForReading.fileDescriptor
        var received = Data()
        let deadline = Date().addingTimeInterval(10)
        while !received.contains(UInt8(ascii: "\n")), Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 200) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
        }
        #expect(watch.isRunning, "watch keeps running")
        let line = String(decoding: received.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        #expect(line.hasPrefix("{") && line.contains("\"event\""), "first line through the pipe: \(line)")
        #expect(received.count < 4096, "lines arrive one by one, not a buffer at a time")
    }
}
