import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Shared by SyncTests and `heartbench sync`.
/// A real PostgreSQL (Debian's `postgresql` package: /usr/lib/postgresql/<N>/bin) in a temporary directory,
/// on a private port of 127.0.0.1 and a private Unix socket directory, stopped at `stop()` or process exit.
///
/// initdb and postgres refuse to run as root; the tests run as root in CI, so then the server runs as
/// `nobody` (through `runuser`), owning only its temporary data directory. Logins over TCP need a password
/// (scram-sha-256), so the wrong-password fault is real; the test's own admin SQL goes through the socket.
public final class PostgresServer: @unchecked Sendable {  // mutable state is only the port, set before use
    public static let user = "heartd"
    public static let password = "heartd-test-password"

    public let dir: String
    public let bin: String
    public private(set) var port: Int
    let serverSettings: [String]
    public var socketDir: String { dir + "/socket" }
    public var dataDir: String { dir + "/data" }

    public struct Failure: Error, CustomStringConvertible { public let description: String }

    /// One server shared by the tests that do not stop it (initdb costs about a second).
    public static let shared: Result<PostgresServer, any Error> = Result { try PostgresServer(start: true) }

    /// `settings`: extra `-c name=value` server settings (the tests run with fsync=off; the benchmark does not).
    public init(start: Bool, port: Int? = nil, settings: [String]? = nil) throws {
        guard let version = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
            .compactMap(Int.init).max() else {
            throw Failure(description: "PostgreSQL is not installed (scripts/setup.sh installs Debian's postgresql)")
        }
        serverSettings = settings ?? ["fsync=off"]
        bin = "/usr/lib/postgresql/\(version)/bin"
        dir = "/tmp/hd-pg-\(UUID().uuidString.prefix(8))"
        self.port = port ?? Self.freePort()
        try FileManager.default.createDirectory(atPath: socketDir, withIntermediateDirectories: true)
        chmod(dir, 0o755)
        let passwordFile = dir + "/pw"
        try Self.password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        if getuid() == 0 {
            _ = Self.run("/bin/chown", ["-R", "nobody:nogroup", dir])
        }
        try runAsServerUser("initdb", ["-D", dataDir, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256",
                                       "--pwfile=\(passwordFile)", "-E", "UTF8", "--no-sync", "--no-instructions"])
        Self.register(self)
        if start { try self.start() }
        _ = try? admin("CREATE ROLE \(Self.user) LOGIN PASSWORD '\(Self.password)'")
    }

    public func start() throws {
        try runAsServerUser("pg_ctl", ["-D", dataDir, "-l", dir + "/server.log", "-w", "-t", "30", "-o",
                                       "-p \(port) -k \(socketDir) -c listen_addresses=127.0.0.1 -c max_connections=60 "
                                           + serverSettings.map { "-c \($0)" }.joined(separator: " "),
                                       "start"])
    }

    /// `fast` (clients disconnected, clean) or `immediate` (a crash: recovery at the next start).
    public func stop(mode: String = "fast") {
        _ = try? runAsServerUser("pg_ctl", ["-D", dataDir, "-m", mode, "-w", "stop"])
    }

    /// A fresh database owned by the test role; its URL (without password).
    public func createDatabase() throws -> (name: String, url: String) {
        let name = "t_" + UUID().uuidString.prefix(8).lowercased()
        try admin("CREATE DATABASE \(name) OWNER \(Self.user)")
        return (name, "postgres://\(Self.user)@127.0.0.1:\(port)/\(name)")
    }

    /// Runs SQL as the superuser over the Unix socket; the output of `psql -At` (rows, '|' between columns).
    @discardableResult
    public func admin(_ sql: String, database: String = "postgres") throws -> String {
        let result = Self.run(bin + "/psql", ["-h", socketDir, "-p", "\(port)", "-U", "postgres", "-d", database,
                                              "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
        guard result.status == 0 else { throw Failure(description: "psql \(sql): \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A single integer answer.
    public func integer(_ sql: String, database: String) throws -> Int {
        let text = try admin(sql, database: database)
        guard let value = Int(text) else { throw Failure(description: "\(sql) answered '\(text)'") }
        return value
    }

    @discardableResult
    private func runAsServerUser(_ tool: String, _ arguments: [String]) throws -> String {
        let result = getuid() == 0
            ? Self.run("/usr/sbin/runuser", ["-u", "nobody", "--", bin + "/" + tool] + arguments)
            : Self.run(bin + "/" + tool, arguments)
        guard result.status == 0 else { throw Failure(description: "\(tool) failed: \(result.output)") }
        return result.output
    }

    /// Runs a tool to completion, its output (stdout and stderr) through a temporary file. posix_spawn + waitpid
    /// rather than Foundation's Process: pg_ctl leaves a daemon behind, and Process.waitUntilExit was seen to
    /// hang after such a child under the test runner.
    public static func run(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let outputPath = "/tmp/hd-pg-out-\(UUID().uuidString.prefix(8))"
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { return (-1, "cannot run \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        let exited = status & 0x7f == 0
        return (exited ? (status >> 8) & 0xff : 128 + (status & 0x7f), output)
    }

    /// A port nothing listens on now (the kernel's pick for a socket bound to port 0).
    public static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Every server is stopped (immediately) and removed when the test process exits.
    private static let servers = Registry()
    private static func register(_ server: PostgresServer) {
        servers.add(server)
        _ = atExitInstalled
    }
    private static let atExitInstalled: Void = {
        atexit { PostgresServer.servers.stopAll() }
    }()

    final class Registry: @unchecked Sendable {
        private let lock = NSLock()
        private var servers: [PostgresServer] = []
        func add(_ server: PostgresServer) { lock.withLock { servers.append(server) } }
        func stopAll() {
            for server in lock.withLock({ servers }) {
                server.stop(mode: "immediate")
                try? FileManager.default.removeItem(atPath: server.dir)
            }
        }
    }

    /// Stops the server and removes its directory now (for servers a test owns).
    public func remove() {
        stop(mode: "immediate")
        try? FileManager.default.removeItem(atPath: dir)
    }
}
