import Foundation
import TestBus
import Testing
import Glibc

/// The socket's group rules against a real second uid (nobody, 65534) through `setpriv`.
@Suite("heartd control socket: permissions",
       .enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                    && getgrnam("daemon") != nil,
                "needs root, /usr/bin/setpriv and the 'daemon' group to run a client as another uid"))
struct DaemonPermissionTests {
    /// Runs heartctl as uid/gid 65534 with `groups` as supplementary groups (none: --clear-groups).
    static func heartctlAsNobody(groups: [String], socket: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let heartctl = try BuiltProducts.path("heartctl")
        let groupArgs = groups.isEmpty ? ["--clear-groups"] : ["--groups=\(groups.joined(separator: ","))"]
        return try runTool("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534"] + groupArgs +
                           [heartctl] + arguments + ["--socket", socket, "--json"])
    }

    @Test("a member of control.group may read but not administer; a stranger is refused")
    func groupRules() throws {
        let dir = try TestDirectory("perm")
        defer { dir.remove() }
        let daemon = try DaemonProcess(dir: dir, speed: 20, group: "daemon")
        defer { daemon.stop() }
        var info = stat()
        #expect(stat(daemon.socket, &info) == 0)
        #expect(info.st_gid == getgrnam("daemon").pointee.gr_gid, "socket owned by control.group")
        #expect(info.st_mode & 0o777 == 0o660)

        // Group member: read methods work.
        let status = try Self.heartctlAsNobody(groups: ["daemon"], socket: daemon.socket, ["status"])
        #expect(status.status == 0, "member reads status: \(status.err)")
        #expect(status.out.contains("\"pid\""))
        // ...but admin methods need root (no admin_group configured).
        let delete = try Self.heartctlAsNobody(groups: ["daemon"], socket: daemon.socket,
                                               ["delete", UUID().uuidString])
        #expect(delete.status == 5, "exit status 5: permission denied")
        #expect((delete.out + delete.err).contains("permission-denied"), "\(delete.out)\(delete.err)")

        // A stranger cannot even open the 0660 socket: told it is permission, and which group to join (not
        // "is it running?", exit 3).
        let stranger = try Self.heartctlAsNobody(groups: [], socket: daemon.socket, ["status"])
        #expect(stranger.status == 5, "exit status 5: permission denied: \(stranger.err)")
        #expect(stranger.err.contains("permission denied") && stranger.err.contains("join group daemon"), "\(stranger.err)")

        // The same behind a 0750 directory of the group, as /run/heartd is under systemd (RuntimeDirectoryMode=0750).
        let runtime = dir.file("run")
        #expect(mkdir(runtime, 0o750) == 0 && chown(runtime, 0, getgrnam("daemon").pointee.gr_gid) == 0)
        #expect(chmod(runtime, 0o750) == 0)
        #expect(symlink(daemon.socket, runtime + "/control.sock") == 0)
        let outsider = try Self.heartctlAsNobody(groups: [], socket: runtime + "/control.sock", ["status"])
        #expect(outsider.status == 5, "exit status 5: permission denied: \(outsider.err)")
        #expect(outsider.err.contains("\(runtime) is open to group daemon only: join group daemon"), "\(outsider.err)")
        let insider = try Self.heartctlAsNobody(groups: ["daemon"], socket: runtime + "/control.sock", ["status"])
        #expect(insider.status == 0, "a member passes the directory: \(insider.err)")

        // With the file mode opened up, the daemon's own check still refuses the stranger.
        chmod(daemon.socket, 0o666)
        let checked = try Self.heartctlAsNobody(groups: [], socket: daemon.socket, ["status"])
        #expect(checked.status == 5, "exit status 5: permission denied")
        #expect((checked.out + checked.err).contains("permission-denied"), "\(checked.out)\(checked.err)")
        let watch = try Self.heartctlAsNobody(groups: [], socket: daemon.socket, ["watch"])
        #expect((watch.out + watch.err).contains("permission-denied"), "\(watch.out)\(watch.err)")

        // Root still administers, and capture went on throughout.
        let root = try daemon.client()
        #expect(try root.callObject("delete", ["uuid": UUID().uuidString])["deleted"] as? Bool == false)
        #expect(TestJSON.beats(inStatus: try root.callObject("status")) > 0)
    }
}
