import Foundation
import TestBus
import Glibc

/// A unique, world-traversable temporary directory (removed by `remove()`); socket paths stay short.
struct TestDirectory {
    let url: URL
    var path: String { url.path }

    init(_ label: String) throws {
        let name = "hd-\(label)-\(UUID().uuidString.prefix(8))"
        url = URL(fileURLWithPath: "/tmp").appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        // Traversable by other uids (the permission tests connect as nobody).
        chmod(url.path, 0o755)
    }

    func file(_ name: String) -> String { url.appendingPathComponent(name).path }

    func remove() {
        if ProcessInfo.processInfo.environment["HEARTD_KEEP_TEST_DIRS"] != nil { return }  // for a post-mortem
        try? FileManager.default.removeItem(at: url)
    }
}

/// The real `heartd` binary running as a child process, with its own store and socket: the simulator by default,
/// or live BlueZ capture (`mode: .bluez`) on the bus in `environment`'s `DBUS_SYSTEM_BUS_ADDRESS`.
final class DaemonProcess {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let process = Process()
    let db: String
    let socket: String
    let logPath: String

    enum Mode { case simulate, bluez }

    /// Starts `heartd --simulate` (or plain `heartd` for `.bluez`) and waits until the control socket answers `hello`.
    /// - Parameters:
    ///   - settings: extra `--set section.key=value` overrides.
    init(dir: TestDirectory, db: String? = nil, speed: Double = 20, settings: [String] = [],
         group: String = "", logSuffix: String = "", mode: Mode = .simulate, environment: [String: String] = [:]) throws {
        self.db = db ?? dir.file("heart.db")
        socket = dir.file("control.sock")
        logPath = dir.file("heartd\(logSuffix).log")
        process.executableURL = URL(fileURLWithPath: try BuiltProducts.path("heartd"))
        var arguments = mode == .simulate ? ["--simulate", "--simulate-speed", "\(speed)"] : []
        arguments += ["--db", self.db, "--socket", socket,
                         "--set", "control.group=\"\(group)\"", "--log-target", "stderr", "--log-level", "info",
                         "--config", dir.file("heartd.toml")]
        for s in settings { arguments += ["--set", s] }
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        // An empty configuration file: all defaults, whatever /etc/heartd holds on this machine.
        if !FileManager.default.fileExists(atPath: dir.file("heartd.toml")) {
            _ = FileManager.default.createFile(atPath: dir.file("heartd.toml"), contents: Data())
        }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        process.standardError = log
        process.standardOutput = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try log.close()
        try waitUntilReady()
    }

    var pid: Int32 { process.processIdentifier }

    /// Polls `hello` until the daemon answers; fails with its log if it exits or takes more than 15 s.
    func waitUntilReady(timeout: TimeInterval = 15) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard process.isRunning else {
                throw Failure(description: "heartd exited (\(process.terminationStatus)) before answering:\n\(log())")
            }
            if let client = try? RawControlClient(path: socket),
               let hello = try? client.callObject("hello", timeout: 2), hello["protocol"] != nil {
                return
            }
            usleep(20_000)
        }
        throw Failure(description: "heartd did not answer within \(timeout) s:\n\(log())")
    }

    func client() throws -> RawControlClient { try RawControlClient(path: socket) }

    /// The daemon's stderr so far.
    func log() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// Waits for the process to exit; returns false on timeout.
    @discardableResult
    func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// SIGTERM, then SIGKILL if it lingers (test cleanup).
    func stop() {
        guard process.isRunning else { return }
        signal(SIGTERM)
        if !waitForExit(timeout: 5) {
            signal(SIGKILL)
            waitForExit(timeout: 5)
        }
    }

    deinit { stop() }
}

/// Runs a command line tool to completion and returns (status, stdout, stderr).
///
/// Output goes to temporary files, not pipes: a daemon another test spawns at the same moment may inherit a
/// pipe's write end, and reading to EOF would then wait for that daemon to exit. The wait polls with a timeout
/// (a tool that hangs fails the test instead of the whole run).
@discardableResult
func runTool(_ path: String, _ arguments: [String], environment: [String: String] = [:],
             timeout: TimeInterval = 30) throws -> (status: Int32, out: String, err: String) {
    let base = "/tmp/hd-tool-\(UUID().uuidString)"
    let outPath = base + ".out", errPath = base + ".err"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    defer {
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
    }
    let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
    let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    if !environment.isEmpty {
        p.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
    }
    p.standardOutput = out
    p.standardError = err
    p.standardInput = FileHandle.nullDevice
    try p.run()
    try? out.close()
    try? err.close()
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning {
        if Date() > deadline {
            kill(p.processIdentifier, SIGKILL)
            throw DaemonProcess.Failure(description: "\(path) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        usleep(5_000)
    }
    let o = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    let e = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    return (p.terminationStatus, o, e)
}

/// `sqlite3 -readonly db "PRAGMA integrity_check"` (the CLI opens the store independently of HeartStore).
func integrityCheck(_ db: String) throws -> String {
    let r = try runTool("/usr/bin/sqlite3", ["-readonly", db, "PRAGMA integrity_check;"])
    return (r.out + r.err).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// One-column query through the sqlite3 CLI (read-only).
func sqliteLines(_ db: String, _ sql: String) throws -> [String] {
    let r = try runTool("/usr/bin/sqlite3", ["-readonly", db, sql])
    guard r.status == 0 else { throw DaemonProcess.Failure(description: "sqlite3 failed: \(r.err)") }
    return r.out.split(separator: "\n").map(String.init)
}
