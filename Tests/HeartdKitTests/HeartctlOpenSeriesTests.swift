import Foundation
import TestBus
import Testing

/// While capturing, heartctl does not pretend nothing was recorded: `series` lists the open series marked open,
/// `stats` and `export` say how many open series they leave out (they were silent, and `series` said "no samples"
/// for up to an hour), through the socket and with `--db` (from the daemon's checkpoints). Against the real daemon
/// (simulator) and the real heartctl binary.
@Suite("heartctl: open series")
struct HeartctlOpenSeriesTests {
    @Test("series marks open series; stats and export say how many they leave out")
    func openSeriesAreShownOrCounted() throws {
        let dir = try TestDirectory("open")
        defer { dir.remove() }
        let daemon = try DaemonQueryMethodTests.runningDaemon(dir)
        defer { daemon.stop() }
        let heartctl = try BuiltProducts.path("heartctl")
        let series = try runTool(heartctl, ["series", "--type", "heartbeat", "--socket", daemon.socket])
        #expect(series.status == 0, "\(series.err)")
        #expect(series.out.contains("heartbeat (open)"), "\(series.out)")
        #expect(series.out.contains("of them still open"), "\(series.out)")
        let stats = try runTool(heartctl, ["stats", "--from", "-1h", "--socket", daemon.socket])
        #expect(stats.status == 0, "\(stats.err)")
        #expect(stats.out.contains("still open (capturing now) are not included"), "\(stats.out)")
        let export = try runTool(heartctl, ["export", "--format", "csv", "--from", "-1h", "--socket", daemon.socket,
                                            "-o", dir.file("out.csv")])
        #expect(export.status == 0, "\(export.err)")
        #expect(export.err.contains("still open (capturing now) are not included"), "\(export.err)")
    }

    @Test("--db lists the running daemon's open series, marked open, from its checkpoints, and their beats")
    func openSeriesFromTheStoreFile() throws {
        let dir = try TestDirectory("open-db")
        defer { dir.remove() }
        // Series of up to an hour (the default): the one being captured stays open while heartctl reads the file.
        let daemon = try DaemonProcess(dir: dir, speed: 20)
        defer { daemon.stop() }
        let heartctl = try BuiltProducts.path("heartctl")
        // It said "no samples" here for up to an hour. The first checkpoint comes about a second after capture starts.
        var open: [[String: Any]] = [], listed: [String: Any]? = nil
        let deadline = Date().addingTimeInterval(15)
        while open.isEmpty && Date() < deadline {
            let offline = try runTool(heartctl, ["series", "--type", "heartbeat", "--db", daemon.db, "--json"])
            #expect(offline.status == 0, "\(offline.err)")
            listed = try JSONSerialization.jsonObject(with: Data(offline.out.utf8)) as? [String: Any]
            open = (listed?["samples"] as? [[String: Any]] ?? []).filter { $0["open"] as? Bool == true }
            if open.isEmpty { usleep(250_000) }
        }
        #expect(!open.isEmpty && listed?["open"] as? Int == open.count, "\(String(describing: listed))\n\(daemon.log())")
        let table = try runTool(heartctl, ["series", "--type", "heartbeat", "--db", daemon.db])
        #expect(table.out.contains("heartbeat (open)") && table.out.contains("of them still open"), "\(table.out)")
        let uuid = try #require(open.first?["uuid"] as? String)
        let beats = try runTool(heartctl, ["beats", uuid, "--db", daemon.db])
        #expect(beats.status == 0 && beats.out.split(separator: "\n").count > 2, "\(beats.out)\(beats.err)")
    }
}
