import Foundation
import Glibc
import TestBus

/// A child process of the browser tests (heartd, heartd-web, the Selenium script) with its output in a file (not a
/// pipe: another test's daemon could inherit the write end), stopped with SIGTERM then SIGKILL.
final class WebProcess: @unchecked Sendable {
    let process = Process()
    let logPath: String

    init(_ executable: String, _ arguments: [String], log: String, environment: [String: String] = [:]) throws {
        logPath = log
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try handle.close()
    }

    var output: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    var isRunning: Bool { process.isRunning }

    /// Waits up to `timeout` seconds for the exit; its status, or nil.
    func exitStatus(timeout: Double) async -> Int32? {
        guard await eventually(timeout: timeout, { !self.process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    /// Waits up to `timeout` seconds for the exit without holding a thread of Swift's pool; whether it exited.
    func waitForExit(timeout: Double) async -> Bool {
        await eventually(timeout: timeout, every: .milliseconds(100)) { !self.process.isRunning }
    }

    func signal(_ signo: Int32) { kill(process.processIdentifier, signo) }

    func stop() {
        guard process.isRunning else { return }
        signal(SIGCONT)
        signal(SIGTERM)
        if !process.waitUntilExitOrTimeout(5) { signal(SIGKILL); _ = process.waitUntilExitOrTimeout(5) }
    }

    deinit { stop() }
}

extension Process {
    func waitUntilExitOrTimeout(_ seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while isRunning, Date() < deadline { usleep(10_000) }
        return !isRunning
    }
}

/// A program the browser tests need, or a clear failure naming the Debian package (scripts/setup.sh installs it).
func requiredProgram(_ path: String, package: String) throws -> String {
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw WebTestFailure("\(path) is missing: install the Debian package \(package) (scripts/setup.sh does)")
    }
    return path
}

struct WebTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
