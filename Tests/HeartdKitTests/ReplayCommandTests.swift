import Foundation
import HealthModel
import HeartStore
import TestBus
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `heartd replay` as a user runs it: standard input with `-`, bad lines by number, and clear errors (with
/// their codes) for what cannot be read — `/dev/null` is an empty recording, not a permission problem.
@Suite("heartd replay: inputs and errors")
struct ReplayCommandTests {
    /// 60 notifications of one strap, a bad line at line 3, CRLF line ends and no final newline.
    static func recording() -> String {
        var lines = [#"{"t": 1800000000, "device": "AA:BB:CC:00:00:09", "event": "connected", "info": {"name": "Strap"}}"#]
        for k in 1...60 {
            lines.append(#"{"t":\#(1_800_000_000 + k),"device":"AA:BB:CC:00:00:09","hex":"\#(HeartRateMeasurementPayload.hex(bpm: 60, rr: [1024]))"}"#)
            if k == 2 { lines.append(#"{"t":1800000002.5,"device":"AA:BB:CC:00:00:09","hex":"164"}"#) }
        }
        return lines.joined(separator: "\r\n")
    }

    static func replay(_ dir: TestDirectory, _ input: String, store: String) throws -> (status: Int32, out: String, err: String) {
        try runTool(try BuiltProducts.path("heartd"), ["replay", "--db", dir.file(store), input])
    }

    @Test("standard input (`-`) replays exactly what the file replays")
    func standardInput() throws {
        let dir = try TestDirectory("replay-stdin")
        defer { dir.remove() }
        try Self.recording().write(toFile: dir.file("r.jsonl"), atomically: true, encoding: .utf8)
        let file = try Self.replay(dir, dir.file("r.jsonl"), store: "file.sqlite")
        let heartd = try BuiltProducts.path("heartd")
        let piped = try runTool("/bin/sh", ["-c", "\"$0\" replay --db \"$1\" - < \"$2\"", heartd, dir.file("stdin.sqlite"), dir.file("r.jsonl")])
        #expect(file.status == 0 && piped.status == 0, "\(file.err) \(piped.err)")
        #expect(file.out.contains("replayed 61 events") && file.out.contains("61 beats") && file.out.contains("1 bad line(s)"), "\(file.out)")
        #expect(piped.out == file.out.replacingOccurrences(of: dir.file("r.jsonl"), with: "-"))
        #expect(file.err.contains("r.jsonl:4: skipped (invalid-hex)"), "\(file.err)")
        #expect(piped.err.contains("-:4: skipped (invalid-hex)"), "\(piped.err)")
        let a = try HeartDatabase.openReadOnly(path: dir.file("file.sqlite"))
        let b = try HeartDatabase.openReadOnly(path: dir.file("stdin.sqlite"))
        let range = (Date(timeIntervalSince1970: 1_799_999_000), Date(timeIntervalSince1970: 1_800_001_000))
        let beats = try a.heartbeatSeries(from: range.0, to: range.1).flatMap(\.beats)
        #expect(beats.count == 61)
        #expect(try b.heartbeatSeries(from: range.0, to: range.1).flatMap(\.beats) == beats)
    }

    @Test("/dev/null is an empty recording; a directory and a missing path are named errors")
    func emptyDirectoryAndMissing() throws {
        let dir = try TestDirectory("replay-errors")
        defer { dir.remove() }
        let empty = try Self.replay(dir, "/dev/null", store: "a.sqlite")
        #expect(empty.status == 0, "\(empty.err)")
        #expect(empty.out.contains("replayed 0 events"), "\(empty.out)")
        #expect(!empty.err.contains("permission"), "\(empty.err)")

        let directory = try Self.replay(dir, dir.path, store: "b.sqlite")
        #expect(directory.status == 1)
        #expect(directory.err.contains("is-directory"), "\(directory.err)")
        let missing = try Self.replay(dir, dir.file("nope.jsonl"), store: "c.sqlite")
        #expect(missing.status == 1)
        #expect(missing.err.contains("not-found"), "\(missing.err)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("c.sqlite")), "nothing written for an unreadable input")
    }

    @Test("a file the user may not read is a permission error",
          .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                   "needs root and /usr/bin/setpriv to run heartd replay as another uid"))
    func permissionDenied() throws {
        let dir = try TestDirectory("replay-perm")
        defer { dir.remove() }
        try Self.recording().write(toFile: dir.file("secret.jsonl"), atomically: true, encoding: .utf8)
        chmod(dir.file("secret.jsonl"), 0o600)
        chmod(dir.path, 0o777)
        let r = try runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups",
                                                 try BuiltProducts.path("heartd"), "replay", "--db", dir.file("n.sqlite"),
                                                 dir.file("secret.jsonl")])
        #expect(r.status == 1)
        #expect(r.err.contains("permission-denied"), "\(r.err)")
    }
}
