import Foundation
import Glibc
import Posix

/// A deliberately dumb control-socket client for end-to-end tests: raw bytes in, JSON lines out, blocking
/// with timeouts. It can send anything (broken JSON, oversize lines) and never interprets the protocol
/// beyond splitting lines, so it tests the daemon rather than a client library.
final class RawControlClient {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let fd: Int32
    private var pending: [UInt8] = []
    private var nextID = 1
    private(set) var closedByPeer = false

    init(path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        guard let address = try? UnixSocketAddress(path, allowAbstract: false) else {
            close(fd)
            throw Failure(description: "socket path too long: \(path)")
        }
        guard address.withSockaddr({ connect(fd, $0, $1) }) == 0 else {
            let text = errnoText()
            close(fd)
            throw Failure(description: "connect \(path): \(text)")
        }
    }

    deinit { close(fd) }

    /// Writes all of `bytes` (blocking).
    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "write: errno \(errno)")
            }
            offset += n
        }
    }

    func writeLine(_ text: String) throws { try write(Array((text + "\n").utf8)) }

    /// The next line, or `nil` when the peer closed the connection. Throws on timeout.
    func readLine(timeout: TimeInterval = 10) throws -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let nl = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                return line
            }
            if closedByPeer { return nil }
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw Failure(description: "no line within \(timeout) s") }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, Int32(min(left, 1) * 1000))
            if ready <= 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                if errno == ECONNRESET { closedByPeer = true; continue }
                throw Failure(description: "read: errno \(errno)")
            }
            if n == 0 { closedByPeer = true; continue }
            pending += buffer[..<n]
        }
    }

    /// The next line parsed as a JSON object.
    func readObject(timeout: TimeInterval = 10) throws -> [String: Any]? {
        guard let line = try readLine(timeout: timeout) else { return nil }
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Failure(description: "not a JSON object: \(line.prefix(200))")
        }
        return object
    }

    /// Sends a request and returns its response object (events in between are skipped).
    func request(_ method: String, _ params: [String: Any] = [:], timeout: TimeInterval = 10) throws -> Response {
        let id = nextID
        nextID += 1
        let data = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": params])
        try write(Array(data) + [UInt8(ascii: "\n")])
        while true {
            guard let object = try readObject(timeout: timeout) else {
                throw Failure(description: "connection closed waiting for the response to \(method)")
            }
            if object["event"] != nil { continue }
            if let rid = object["id"] as? Int, rid != id { continue }
            return Response(object: object)
        }
    }

    /// Sends a request and returns its result, throwing when the response is an error.
    func call(_ method: String, _ params: [String: Any] = [:], timeout: TimeInterval = 10) throws -> Any {
        let response = try request(method, params, timeout: timeout)
        if let code = response.errorCode {
            throw Failure(description: "\(method) failed: \(code): \(response.errorMessage ?? "")")
        }
        return response.object["result"] ?? NSNull()
    }

    /// `call` whose result must be an object.
    func callObject(_ method: String, _ params: [String: Any] = [:], timeout: TimeInterval = 10) throws -> [String: Any] {
        guard let o = try call(method, params, timeout: timeout) as? [String: Any] else {
            throw Failure(description: "\(method): result is not an object")
        }
        return o
    }

    /// Reads events until `predicate` accepts one (returned) or the time runs out (throws).
    func readEvent(timeout: TimeInterval, where predicate: ([String: Any]) -> Bool) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard let o = try readObject(timeout: max(deadline.timeIntervalSinceNow, 0.01)) else {
                throw Failure(description: "connection closed while waiting for an event")
            }
            if o["event"] != nil, predicate(o) { return o }
        }
        throw Failure(description: "no matching event within \(timeout) s")
    }

    struct Response {
        let object: [String: Any]
        var id: Int? { object["id"] as? Int }
        var error: [String: Any]? { object["error"] as? [String: Any] }
        var errorCode: String? { error?["code"] as? String }
        var errorMessage: String? { error?["message"] as? String }
        var result: Any? { object["result"] }
    }
}
