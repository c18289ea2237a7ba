import Glibc
import Foundation
import Testing
@testable import Control

/// Connects as another uid through `setpriv` (util-linux) and a small Python client.
@Suite(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
struct ControlPermissionTests {
    static let script = """
        import json, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        f = s.makefile("rwb")
        for i, method in enumerate(sys.argv[2:]):
            f.write((json.dumps({"id": i + 1, "method": method, "params": {"k": 1}}) + "\\n").encode())
            f.flush()
            print(f.readline().decode().strip())
        """

    /// Runs the script as `uid`/`gid` with no supplementary groups; returns one response per method.
    func run(uid: Int, gid: Int, path: String, methods: [String]) async throws -> [ControlResponse] {
        let output = try await runProcess("/usr/bin/setpriv",
            ["--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "/usr/bin/python3", "-c", Self.script, path] + methods)
        return try output.split(separator: "\n").map {
            try JSONLine.decode(ControlResponse.self, from: Array($0.utf8))
        }
    }

    func makeServer() throws -> TestServer {
        // World-connectable socket so the access check (not file permissions) is what refuses.
        let server = try TestServer {
            $0.group = "daemon"
            $0.adminGroup = nil
            $0.mode = 0o666
        }
        chmod(server.directory, 0o755)
        chmod(server.directory + "/sub", 0o755)
        return server
    }

    @Test func secondUIDOutsideTheGroupIsRefused() async throws {
        let server = try makeServer()
        let responses = try await run(uid: 65534, gid: 65534, path: server.path, methods: ["echo", "hello"])
        try #require(responses.count == 2)
        #expect(responses[0].error?.code == .permissionDenied)
        #expect(responses[0].error?.message.contains("'daemon'") == true)
        #expect(responses[1].result?["protocol"] == .string(ControlProtocol.version))
    }

    @Test func groupMemberReadsButCannotAdminister() async throws {
        let server = try makeServer()
        let daemonGID = try #require(UserDatabase.gid(ofGroup: "daemon"))
        let responses = try await run(uid: 65534, gid: Int(daemonGID), path: server.path, methods: ["echo", "admin.reset"])
        try #require(responses.count == 2)
        #expect(responses[0].result == ["k": 1])
        #expect(responses[1].error?.code == .permissionDenied)
        #expect(responses[1].error?.message.contains("requires root") == true)
    }

    @Test func socketIsOwnedByTheConfiguredGroup() throws {
        let server = try makeServer()
        var info = stat()
        #expect(stat(server.path, &info) == 0)
        #expect(info.st_gid == UserDatabase.gid(ofGroup: "daemon"))
    }
}
