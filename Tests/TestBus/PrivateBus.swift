/// Test support shared by the test targets: a private dbus-daemon, Python fixture processes, the built executables.
import Foundation

/// A private dbus-daemon in a fresh temp folder, killed on `stop()` (or deinit).
public final class PrivateBus: @unchecked Sendable {  // fields are set once in init; `process` is only signalled
    public let dir: URL
    public let address: String
    public let process: Process

    public init() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("heartd-bus-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let socket = dir.appendingPathComponent("bus").path
        address = "unix:path=\(socket)"
        let config = """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>\(address)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
          </policy>
        </busconfig>
        """
        let configURL = dir.appendingPathComponent("bus.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        // --print-address is written once the daemon listens (the socket file alone appears before listen()).
        process.arguments = ["--config-file=\(configURL.path)", "--nofork", "--nopidfile", "--print-address=1"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let fd = out.fileHandleForReading.fileDescriptor
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, 5000) == 1 else { throw TestFailure("dbus-daemon did not start") }
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1 && byte != 10 {}
        guard FileManager.default.fileExists(atPath: socket) else { throw TestFailure("dbus-daemon has no socket") }
    }

    /// SIGKILL the daemon (connection loss).
    public func kill() {
        if process.isRunning {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: dir)
    }
}

/// A helper process (Python fixture) killed on deinit.
public final class Helper: @unchecked Sendable {  // set once in init
    public let process: Process
    public init(script: String, name: String, in dir: URL, arguments: [String] = [], environment: [String: String] = [:]) throws {
        let url = dir.appendingPathComponent(name)
        try script.write(to: url, atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [url.path] + arguments
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }
    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}
