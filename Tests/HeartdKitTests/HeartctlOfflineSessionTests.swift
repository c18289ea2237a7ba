import Foundation
import HeartStore
import TestBus
import Testing

/// `heartctl --db` reads a store file: what needs the daemon (starting or stopping a session) says so and exits 6
/// (needsDaemon), as `watch` and `delete` do, instead of failing on the read-only store with exit 1.
@Suite("heartctl --db: session methods need the daemon")
struct HeartctlOfflineSessionTests {
    @Test("session start and stop with --db exit 6 with a clear message; the read commands work")
    func sessionChangesNeedTheDaemon() throws {
        let dir = try TestDirectory("offline-session")
        defer { dir.remove() }
        let db = dir.file("heart.db")
        let database = try HeartDatabase(path: db)
        try database.close()
        let heartctl = try BuiltProducts.path("heartctl")
        for arguments in [["--db", db, "session", "start", "--label", "x"], ["--db", db, "session", "stop"]] {
            let r = try runTool(heartctl, arguments)
            #expect(r.status == 6, "\(arguments): \(r)")
            #expect(r.err.contains("needs the running daemon"), "\(arguments): \(r.err)")
        }
        let listed = try runTool(heartctl, ["--db", db, "sessions"])
        #expect(listed.status == 0 && listed.out.contains("no sessions"), "\(listed)")
    }
}
