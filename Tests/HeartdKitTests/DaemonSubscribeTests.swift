import Foundation
import Glibc
import HeartStore
import TestBus
import Testing

/// `subscribe` / `heartctl watch --changes`: the store's changes pushed as they are saved, each with its anchor, so an
/// exporter that stops and resumes from its last anchor gets exactly what it missed — deletes and sessions included.
@Suite("subscribe: pushed changes, resumed by anchor", .serialized)
struct DaemonSubscribeTests {
    /// A change as the stream sends it: (anchor, event, uuid).
    struct Change: Hashable {
        var anchor: Int
        var event: String
        var uuid: String
    }

    static func change(_ e: [String: Any]) -> Change {
        let uuid = (e["sample"] as? [String: Any])?["uuid"] ?? (e["session"] as? [String: Any])?["uuid"] ?? e["uuid"]
        return Change(anchor: e["anchor"] as? Int ?? -1, event: e["event"] as? String ?? "?", uuid: uuid as? String ?? "?")
    }

    /// Subscribes on a new connection and reads until `caught-up`, then `more` further changes.
    static func consume(_ daemon: DaemonProcess, since: Int?, more: Int = 0) throws -> (changes: [Change], caughtUp: Int, client: RawControlClient) {
        let client = try daemon.client()
        let opened = try client.callObject("subscribe", since.map { ["since": $0] } ?? [:])
        #expect(opened["streaming"] as? Bool == true)
        var changes: [Change] = [], caughtUp: Int?
        while caughtUp == nil || changes.count < more {
            let e = try client.readEvent(timeout: 10) { _ in true }
            if e["event"] as? String == "caught-up" {
                caughtUp = e["anchor"] as? Int
                if more == 0 { break }
                continue
            }
            changes.append(Self.change(e))
            if caughtUp != nil { break } // one change after catching up is enough to prove the push
        }
        return (changes, caughtUp ?? -1, client)
    }

    @Test("consume, disconnect, more saved and deleted, resume from the last anchor: exactly the missing changes",
          .timeLimit(.minutes(2)))
    func resumeFromTheLastAnchor() throws {
        let dir = try TestDirectory("subscribe")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20, settings: ["series.max_duration_seconds=2"])
        let other = try daemon.client()
        try DaemonSessionTests().waitForSeries(other, after: "2000-01-01T00:00:00Z")

        // Without `since`: from now on — caught up at once, then pushed as the next series is saved.
        let live = try Self.consume(daemon, since: nil, more: 1)
        #expect(live.caughtUp > 0 && live.changes.first.map { $0.anchor > live.caughtUp } == true, "\(live)")
        shutdown(live.client.fd, Int32(SHUT_RDWR))

        // An exporter's first run: everything from 0, then it stops.
        let first = try Self.consume(daemon, since: 0)
        #expect(!first.changes.isEmpty && first.changes.allSatisfy { $0.event == "added" }, "\(first.changes)")
        let last = try #require(first.changes.last).anchor
        #expect(first.caughtUp >= last)
        shutdown(first.client.fd, Int32(SHUT_RDWR))  // the exporter goes away

        // While it is away: more series are saved, one it exported is deleted, a session starts and stops.
        let victim = try #require(first.changes.first).uuid
        #expect(try other.callObject("delete", ["uuid": victim])["deleted"] as? Bool == true)
        // Pacing, not a wait for a result: the exporter stays away while series go on being saved (one every 0.1 s).
        let session = try other.callObject("session.start", ["label": "away"])
        usleep(300_000)
        _ = try other.callObject("session.stop", ["uuid": session["uuid"] as? String ?? ""])
        usleep(300_000)

        // It resumes from the last anchor it handled (`last`, not the caught-up anchor: it may not have stored that).
        let second = try Self.consume(daemon, since: last)
        #expect(Set(second.changes.map(\.anchor)).isDisjoint(with: first.changes.map(\.anchor)), "no duplicates")
        #expect(second.changes.map(\.anchor) == second.changes.map(\.anchor).sorted() && second.changes.allSatisfy { $0.anchor > last })
        #expect(second.changes.contains(Change(anchor: second.changes.first { $0.event == "deleted" }?.anchor ?? -1,
                                               event: "deleted", uuid: victim)), "\(second.changes)")
        #expect(second.changes.contains { $0.event == "session" && $0.uuid == session["uuid"] as? String })
        // Exactly what the store holds after `last`, up to where the stream caught up.
        let store = try HeartDatabase.openReadOnly(path: daemon.db)
        let expected = try store.changeList(since: Int64(last), limit: 100_000).changes
            .filter { $0.anchor <= Int64(second.caughtUp) }
        let missed = second.changes.filter { $0.anchor <= second.caughtUp }
        #expect(missed.map(\.anchor) == expected.map { Int($0.anchor) }, "missed \(missed.count), store \(expected.count)")
        #expect(missed.filter { $0.event == "added" }.count == expected.filter { if case .added = $0 { true } else { false } }.count)
    }

    @Test("heartctl watch --changes --since prints each change with its anchor, then waits", .timeLimit(.minutes(2)))
    func heartctlWatchChanges() throws {
        let dir = try TestDirectory("watch-changes")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20, settings: ["series.max_duration_seconds=2"])
        try DaemonSessionTests().waitForSeries(try daemon.client(), after: "2000-01-01T00:00:00Z")
        let out = dir.file("changes.out")
        _ = FileManager.default.createFile(atPath: out, contents: nil)
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: try BuiltProducts.path("heartctl"))
        watch.arguments = ["--socket", daemon.socket, "--json", "watch", "--changes", "--since", "1"]
        watch.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        defer { if watch.isRunning { kill(watch.processIdentifier, SIGKILL) } }
        func lines() -> [[String: Any]] {
            ((try? String(contentsOfFile: out, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        let deadline = Date().addingTimeInterval(15)
        // Caught up, and then at least one change pushed after it.
        while Date() < deadline, !(lines().drop { $0["event"] as? String != "caught-up" }.count >= 2) { usleep(50_000) }
        #expect(watch.isRunning, "it keeps waiting for changes")
        let events = lines()
        #expect((events.first?["anchor"] as? Int ?? 0) > 1, "starts after --since 1: \(events.prefix(2))")
        let anchors = events.filter { $0["event"] as? String != "caught-up" }.compactMap { $0["anchor"] as? Int }
        #expect(anchors == anchors.sorted() && Set(anchors).count == anchors.count && anchors.count >= 2)
        let offline = try runTool(try BuiltProducts.path("heartctl"), ["--db", daemon.db, "watch", "--changes"])
        #expect(offline.status == 6, "\(offline)")
    }
}
