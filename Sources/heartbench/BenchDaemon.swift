import Control
import Foundation
import Glibc
import Posix

/// `heartd --simulate` in a temporary directory, killed and removed by `stop()`.
final class BenchDaemon {
    let process = Process()
    let dir: URL
    let socket: String

    /// `db`: the store to serve (default a new one in its temporary directory).
    init(heartd: String, speed: Double, db: String? = nil) throws {
        dir = URL(fileURLWithPath: "/tmp").appendingPathComponent("heartbench-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        socket = dir.appendingPathComponent("control.sock").path
        let config = dir.appendingPathComponent("heartd.toml").path
        _ = FileManager.default.createFile(atPath: config, contents: Data())
        process.executableURL = URL(fileURLWithPath: heartd)
        process.arguments = ["--simulate", "--simulate-speed", "\(speed)", "--config", config,
                             "--db", db ?? dir.appendingPathComponent("heart.db").path, "--socket", socket,
                             "--set", "control.group=\"\"", "--log-target", "stderr", "--log-level", "warning"]
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let c = try? BenchConnection(path: socket), (try? c.roundTrip(ControlRequest(id: 0, method: ControlProtocol.helloMethod))) != nil { return }
            guard process.isRunning else { break }
            usleep(20_000)
        }
        _ = stop()
        throw ControlBenchmarkError(description: "heartd did not start answering on \(socket)")
    }

    var isRunning: Bool { process.isRunning }

    /// SIGTERM (SIGKILL after 30 s); returns the seconds from SIGTERM to exit (nil: it had to be killed).
    @discardableResult
    func stop() -> Double? {
        var took: Double?
        if process.isRunning {
            let sent = Date()
            kill(process.processIdentifier, SIGTERM)
            let deadline = sent.addingTimeInterval(30)
            while process.isRunning, Date() < deadline { usleep(5_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                while process.isRunning { usleep(5_000) }
            } else {
                took = Date().timeIntervalSince(sent)
            }
        }
        try? FileManager.default.removeItem(at: dir)
        return took
    }
}

/// A blocking Unix-socket line connection, as thin as possible so the numbers are the daemon's.
final class BenchConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0, let address = try? UnixSocketAddress(path, allowAbstract: false) else {
            if fd >= 0 { close(fd) }
            throw ControlBenchmarkError(description: "cannot create a socket for \(path)")
        }
        guard address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            let text = errnoText()
            close(fd)
            throw ControlBenchmarkError(description: "connect \(path): \(text)")
        }
    }

    deinit { close(fd) }

    func send(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ControlBenchmarkError(description: "write failed: errno \(errno)") }
            offset += n
        }
    }

    /// Blocks until one full line arrived and returns it.
    func readLine() throws -> ArraySlice<UInt8> {
        while true {
            if let nl = buffer.firstIndex(of: 10) {
                let line = buffer[..<nl]
                buffer.removeSubrange(...nl)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw ControlBenchmarkError(description: "connection closed") }
            buffer += chunk[..<n]
        }
    }

    /// Whether a complete line already waits in the buffer (poll(2) on `fd` cannot see it).
    var hasBufferedLine: Bool { buffer.contains(10) }

    func roundTrip(_ line: String) throws -> ArraySlice<UInt8> {
        try send(line)
        return try readLine()
    }

    /// Sends `request` (built by its `ControlCall`) and reads the next line.
    func roundTrip(_ request: ControlRequest) throws -> ArraySlice<UInt8> {
        try roundTrip(String(decoding: request.encodedLine(), as: UTF8.self))
    }
}
