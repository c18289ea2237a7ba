import Foundation
import Testing
import TestFileSystems

/// heartd on a full disk, on the file systems desktops and gateways ship (btrfs, xfs, ext4 with no reserved blocks,
/// loop-mounted) and on a tmpfs: it never dies, keeps capturing and answering, says since when it cannot write, and
/// stores what it held in memory once space returns — started on a full disk too. Needs root and loop mounts (CI has
/// both); elsewhere the file systems this machine cannot mount are left out, and `ciTestsEveryFileSystem` fails in CI.
@Suite("heartd on a full disk", .serialized)
struct DaemonDiskFullTests {
    static let kinds = ScratchFileSystem.Kind.allCases.filter(ScratchFileSystem.isAvailable)

    @Test("CI mounts every file system the full-disk tests use")
    func ciTestsEveryFileSystem() {
        guard ProcessInfo.processInfo.environment["CI"] == "true" else { return }
        #expect(Self.kinds == ScratchFileSystem.Kind.allCases, "mountable here: \(Self.kinds)")
    }

    @Test("the disk fills while heartd runs: it stays up, says so, holds the series, stores them when space returns",
          .timeLimit(.minutes(2)), arguments: kinds)
    func fillsWhileRunning(_ kind: ScratchFileSystem.Kind) throws {
        let dir = try TestDirectory("full-\(kind)")
        defer { dir.remove() }
        let fs = try ScratchFileSystem(kind, at: dir.file("mnt"))
        defer { fs.unmount() }
        let db = fs.path + "/heart.db"
        let daemon = try DaemonProcess(dir: dir, db: db, speed: 200, settings: ["series.max_duration_seconds=5"])
        defer { daemon.stop() }
        let client = try daemon.client()
        let watcher = try daemon.client()
        _ = try watcher.call("watch")
        try poll("a series is stored") { !TestJSON.objects(try client.callObject("series", ["to": "2100-01-01"])["samples"]).isEmpty }
        let gapsBefore = try Self.gaps(client)

        try fs.fill()
        var store: [String: Any] = [:]
        try poll("status says the store cannot write, with finished series held in memory", seconds: 30) {
            store = try client.callObject("status")["store"] as? [String: Any] ?? [:]
            return store["state"] as? String == "failing" && Self.sink(store)["queuedBeats"] as? Int ?? 0 > 0
        }
        #expect(TestJSON.date(store["failing_since"]) != nil, "since when: \(store)")
        #expect(store["error"] is String)
        // Written back again: where a page rewritten through a shared mapping found no room, this was a SIGBUS.
        _ = try? runTool("/usr/bin/sync", ["-f", fs.path])
        let beatsFull = TestJSON.beats(inStatus: try client.callObject("status"))
        var record = WatchRecord()
        try record.record(watcher, until: Date().addingTimeInterval(1))
        #expect(!record.beats.isEmpty, "watch goes on while the disk is full")
        try poll("capture goes on") { TestJSON.beats(inStatus: try client.callObject("status")) > beatsFull }
        #expect(daemon.process.isRunning, "the daemon stays up on a full disk:\n\(daemon.log())")
        #expect(daemon.log().contains("store cannot write"), "the outage is logged")

        try fs.release()
        try poll("the store writes again and what waited in memory is stored", seconds: 30) {
            let store = try client.callObject("status")["store"] as? [String: Any] ?? [:]
            let sink = Self.sink(store)
            return store["state"] as? String == "writing" && sink["queuedBeats"] as? Int == 0
                && sink["queuedBatches"] as? Int == 0
        }
        let after = try client.callObject("status")["store"] as? [String: Any] ?? [:]
        #expect(Self.sink(after)["droppedSamples"] as? Int == 0, "nothing dropped: \(after)")
        #expect(try Self.gaps(client) == gapsBefore, "no gap flag where no beat was lost")
        try record.record(watcher, until: Date().addingTimeInterval(0.2))
        var missing = Set(record.finished)
        try poll("every series finished while the disk was full is stored") {
            let stored = TestJSON.objects(try client.callObject("series", ["to": "2100-01-01", "limit": 1_000_000])["samples"])
            missing.subtract(stored.compactMap { $0["uuid"] as? String })
            return missing.isEmpty
        }
        #expect(daemon.log().contains("store writes again"), "the end of the outage is logged")
        daemon.stop()
        #expect(try integrityCheck(db) == "ok")
    }

    @Test("heartd started on a full disk comes up, captures, retries, and stores once space returns",
          .timeLimit(.minutes(2)), arguments: kinds)
    func startsOnAFullDisk(_ kind: ScratchFileSystem.Kind) throws {
        let dir = try TestDirectory("fullstart-\(kind)")
        defer { dir.remove() }
        let fs = try ScratchFileSystem(kind, at: dir.file("mnt"))
        defer { fs.unmount() }
        // No store yet: the daemon must create it, and cannot.
        try fs.fill()
        let db = fs.path + "/heart.db"
        let daemon = try DaemonProcess(dir: dir, db: db, speed: 50, settings: ["series.max_duration_seconds=3"])
        defer { daemon.stop() }
        let client = try daemon.client()
        var store: [String: Any] = [:]
        try poll("status says the store cannot be written") {
            store = try client.callObject("status")["store"] as? [String: Any] ?? [:]
            return store["state"] as? String != "writing" && TestJSON.date(store["failing_since"]) != nil
        }
        try poll("capture goes on") { TestJSON.beats(inStatus: try client.callObject("status")) > 0 }
        // Reads say why they cannot answer instead of answering nothing.
        let refused = try client.request("series", ["to": "2100-01-01"])
        #expect(refused.errorCode == "unavailable", "\(refused.object)")

        try fs.release()
        try poll("the store opens and what waited in memory is stored", seconds: 30) {
            let store = try client.callObject("status")["store"] as? [String: Any] ?? [:]
            guard store["state"] as? String == "writing", Self.sink(store)["queuedBatches"] as? Int == 0 else { return false }
            return !TestJSON.objects(try client.callObject("series", ["to": "2100-01-01"])["samples"]).isEmpty
        }
        #expect(daemon.process.isRunning)
        #expect(daemon.log().contains("cannot open the store"), "the outage is logged:\n\(daemon.log())")
        daemon.stop()
        #expect(try integrityCheck(db) == "ok")
    }

    static func sink(_ store: [String: Any]) -> [String: Any] { store["sink"] as? [String: Any] ?? [:] }

    /// Gap flags the pipeline raised, over every device and rule.
    static func gaps(_ client: RawControlClient) throws -> Int {
        TestJSON.objects(try client.callObject("status")["devices"]).reduce(0) { total, device in
            let rules = (device["counters"] as? [String: Any])?["gapsByRule"] as? [String: Int] ?? [:]
            return total + rules.values.reduce(0, +)
        }
    }

    /// Polls `condition` every 100 ms until it holds; fails naming `what` after `seconds`.
    func poll(_ what: String, seconds: Double = 15, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return }
            usleep(100_000)
        }
        Issue.record("not within \(seconds) s: \(what)")
        throw ScratchFileSystem.Failure(description: "timed out: \(what)")
    }
}
