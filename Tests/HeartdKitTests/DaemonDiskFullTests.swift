import Foundation
import Testing
import Glibc

/// A small tmpfs mounted for one test (needs root and permission to mount).
struct TmpfsMount {
    let path: String

    init(at path: String, sizeBytes: Int) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let r = try runTool("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=\(sizeBytes)", "tmpfs", path])
        guard r.status == 0 else { throw DaemonProcess.Failure(description: "mount tmpfs: \(r.err)") }
        self.path = path
    }

    func unmount() { _ = try? runTool("/usr/bin/umount", ["-l", path]) }

    /// Bytes still free for an unprivileged writer.
    func freeBytes() -> Int {
        var s = statvfs()
        guard statvfs(path, &s) == 0 else { return 0 }
        return Int(s.f_bavail) * Int(s.f_frsize)
    }

    /// Whether this process may mount a tmpfs (probed once with a throwaway mount).
    static let isPermitted: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/mount") else { return false }
        let probe = "/tmp/hd-mount-probe-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard let mount = try? TmpfsMount(at: probe, sizeBytes: 1 << 20) else { return false }
        mount.unmount()
        return true
    }()
}

@Suite("heartd on a full disk", .enabled(if: TmpfsMount.isPermitted, "needs root and permission to mount a tmpfs"))
struct DaemonDiskFullTests {
    @Test("store errors on a full filesystem are reported, series buffered, then saved when space returns",
          .timeLimit(.minutes(1)))
    func fullDisk() throws {
        let dir = try TestDirectory("full")
        defer { dir.remove() }
        let mount = try TmpfsMount(at: dir.file("mnt"), sizeBytes: 8 << 20)
        defer { mount.unmount() }
        let db = mount.path + "/heart.db"
        let daemon = try DaemonProcess(dir: dir, db: db, speed: 200, settings: ["series.max_duration_seconds=5"])
        defer { daemon.stop() }
        let client = try daemon.client()
        let watcher = try daemon.client()
        _ = try watcher.call("watch")
        usleep(500_000)
        #expect(TestJSON.objects(try client.callObject("series", ["to": "2100-01-01"])["samples"]).isEmpty == false)

        // Fill the filesystem: every later store write fails with SQLITE_FULL.
        let filler = mount.path + "/filler"
        // Most of it at once (the daemon keeps writing meanwhile, so leave a margin), dd takes the rest.
        let fill = try runTool("/usr/bin/fallocate", ["-l", "\(max(mount.freeBytes() - (256 << 10), 4096))", filler])
        #expect(fill.status == 0, "fallocate: \(fill.err)")
        _ = try? runTool("/usr/bin/dd", ["if=/dev/zero", "of=\(mount.path)/filler2", "bs=4096"])
        #expect(mount.freeBytes() < 64 << 10, "filesystem full")
        var sink: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            usleep(200_000)
            let store = try client.callObject("status")["store"] as? [String: Any]
            sink = store?["sink"] as? [String: Any] ?? [:]
            if sink["lastError"] != nil, (sink["queuedBeats"] as? Int ?? 0) > 0 { break }
        }
        #expect(sink["lastError"] is String, "status reports the store error: \(sink)")
        #expect((sink["failures"] as? Int ?? 0) > 0)
        #expect((sink["queuedBeats"] as? Int ?? 0) > 0, "finished series wait in memory")
        #expect(daemon.process.isRunning, "the daemon stays up on a full disk")
        let beatsFull = TestJSON.beats(inStatus: try client.callObject("status"))
        usleep(300_000)
        #expect(TestJSON.beats(inStatus: try client.callObject("status")) > beatsFull, "capture goes on")

        // Space returns: the buffer drains into the store.
        try FileManager.default.removeItem(atPath: filler)
        try? FileManager.default.removeItem(atPath: mount.path + "/filler2")
        var drained = false
        let drainDeadline = Date().addingTimeInterval(15)
        while Date() < drainDeadline {
            usleep(200_000)
            let store = try client.callObject("status")["store"] as? [String: Any]
            let s = store?["sink"] as? [String: Any] ?? [:]
            if s["queuedBeats"] as? Int == 0, s["queuedBatches"] as? Int == 0 { drained = true; break }
        }
        #expect(drained, "the buffered series were saved once space returned")
        #expect((try client.callObject("status")["store"] as? [String: Any])?["sink"].map { ($0 as? [String: Any])?["droppedSamples"] as? Int } == 0)

        // Every series the daemon reported finished while the disk was full is now stored. `series-finished` means
        // "handed to the store writer", so the newest of them may still be on their way: allow the writer a moment.
        var record = WatchRecord()
        try record.record(watcher, until: Date().addingTimeInterval(0.2))
        var missing = Set(record.finished)
        let storedDeadline = Date().addingTimeInterval(5)
        repeat {
            let stored = Set(TestJSON.objects(try client.callObject("series", ["to": "2100-01-01", "limit": 1_000_000])["samples"])
                .compactMap { $0["uuid"] as? String })
            missing.subtract(stored)
            if !missing.isEmpty { usleep(100_000) }
        } while !missing.isEmpty && Date() < storedDeadline
        #expect(missing.isEmpty, "finished but not stored: \(missing.count) of \(record.finished.count)")
        daemon.stop()
        #expect(try integrityCheck(db) == "ok")
    }
}
