import Foundation
import TestBus
import Testing

/// While capturing, heartctl does not pretend nothing was recorded: `series` lists the open series marked open,
/// `stats` and `export` say how many open series they leave out (they were silent, and `series` said "no samples"
/// for up to an hour). Against the real daemon (simulator) and the real heartctl binary.
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
        // Read straight from the file (no daemon), only what is stored, and no note.
        let offline = try runTool(heartctl, ["series", "--type", "heartbeat", "--db", daemon.db])
        #expect(offline.status == 0 && !offline.out.contains("(open)"), "\(offline.out)\(offline.err)")
    }
}
