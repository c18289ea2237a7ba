import Foundation
import Glibc
import TestBus
import Testing

/// People against a running daemon (the simulator as source): a person assigned to the strap is on its series and
/// on the sessions it covers, so `series`, `stats` and `sessions` select a person's data by metadata; `status` says
/// who wears the strap; a release, a rename and a removal take effect on the next series.
@Suite("people against a running daemon", .serialized)
struct DaemonPeopleTests {
    let settings = ["series.max_duration_seconds=2"]

    func heartctl(_ daemon: DaemonProcess, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try runTool(try BuiltProducts.path("heartctl"), ["--socket", daemon.socket] + arguments)
    }

    func json(_ r: (status: Int32, out: String, err: String)) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r)")
    }

    /// The stored heartbeat series' metadata, oldest first.
    func seriesMetadata(_ daemon: DaemonProcess, _ extra: [String] = []) throws -> [[String: Any]] {
        let r = try heartctl(daemon, ["--json", "series", "--type", "heartbeat"] + extra)
        return (try json(r)["samples"] as? [[String: Any]] ?? []).map { $0["metadata"] as? [String: Any] ?? [:] }
    }

    @Test("assign → series, sessions and stats per person; status shows the wearer; release, rename, remove",
          .timeLimit(.minutes(3)))
    func aPersonsDataIsSelectedByMetadata() async throws {
        let dir = try TestDirectory("people")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 1, settings: settings)
        let client = try daemon.client()
        #expect(await eventually { !(try seriesMetadata(daemon)).isEmpty }, "\(daemon.log())")
        let status = try client.callObject("status")
        let strap = try #require(((status["devices"] as? [[String: Any]])?.first)?["address"] as? String)

        let name = "<b>Ana</b> & \"co\""
        let added = try heartctl(daemon, ["people", "add", "--name", name, "--age", "40", "--weight", "61.5"])
        #expect(added.status == 0, "\(added)")
        let uuid = added.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: uuid) != nil, "\(added)")
        #expect(try heartctl(daemon, ["people", "add", "--name", " padded"]).status == 1, "a padded name is refused")
        #expect(try heartctl(daemon, ["people", "add", "--name", "X", "--hrmax", "999"]).status == 1, "HRmax out of range")
        let assigned = try heartctl(daemon, ["people", "assign", name, strap.lowercased()])
        #expect(assigned.status == 0 && assigned.out.contains(strap), "\(assigned)")

        // status: the wearer, with the HRmax estimated from the age by clients.
        #expect(await eventually {
            let devices = try client.callObject("status")["devices"] as? [[String: Any]] ?? []
            return (devices.first?["person"] as? [String: Any])?["name"] as? String == name
        })
        let session = try heartctl(daemon, ["session", "start", "--label", "warm-up"])
        let sessionUUID = session.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let shown = try client.callObject("session.show", ["uuid": sessionUUID])
        #expect((shown["metadata"] as? [String: String]) == ["HeartdPerson": uuid, "HeartdPersonName": name], "\(shown)")
        #expect(await eventually(timeout: 30) {
            try seriesMetadata(daemon, ["--meta", "HeartdPerson=\(uuid)"]).count >= 2
        }, "\(daemon.log())")
        #expect(try heartctl(daemon, ["session", "stop"]).status == 0)
        for meta in try seriesMetadata(daemon, ["--meta", "HeartdPersonName=\(name)"]) {
            #expect(meta["HeartdPerson"] as? String == uuid)
        }
        let bySession = try heartctl(daemon, ["--json", "sessions", "--meta", "HeartdPerson=\(uuid)"])
        #expect(bySession.status == 0 && bySession.out.contains(sessionUUID), "\(bySession)")
        let stats = try json(try heartctl(daemon, ["--json", "stats", "--meta", "HeartdPerson=\(uuid)"]))
        #expect(((stats["statistics"] as? [String: Any])?["count"] as? Int ?? 0) > 0, "\(stats)")

        // Released: the next series carry nobody; the list shows no strap.
        let released = try heartctl(daemon, ["people", "unassign", strap])
        #expect(released.status == 0 && released.out.contains(name), "\(released)")
        let before = try seriesMetadata(daemon).count
        #expect(await eventually(timeout: 30) {
            let all = try seriesMetadata(daemon)
            return all.count > before + 1 && all.last?["HeartdPerson"] == nil
        }, "\(daemon.log())")
        let list = try heartctl(daemon, ["people"])
        #expect(list.status == 0 && list.out.contains(name) && list.out.contains("~180"), "\(list)")

        // Removed: gone from the list; what was recorded keeps the name.
        #expect(try heartctl(daemon, ["people", "remove", uuid]).status == 0)
        #expect(try heartctl(daemon, ["people", "remove", uuid]).status == 4, "not found the second time")
        #expect(try heartctl(daemon, ["people"]).out.contains("no people"))
        #expect(!(try seriesMetadata(daemon, ["--meta", "HeartdPersonName=\(name)"])).isEmpty)
    }
}
