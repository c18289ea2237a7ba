import Control
import Foundation
import HeartQueries
import HeartStore

/// How heartctl reaches the data: the daemon's control socket, or a store file opened read-only (`--db`),
/// answered by the same `StoreQueries` the daemon runs. Commands use the typed calls below.
protocol Transport: Sendable {
    func call(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> JSONValue
    /// `C`'s typed result: decoded from the daemon's JSON, or (`--db`) the store's answer as it is.
    func call<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> C.Result
    func stream(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> AsyncThrowingStream<ControlEvent, any Error>
}

extension Transport {
    /// `C`'s result as the JSON it came in (what `--json` prints).
    func json<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> JSONValue {
        try await self.call(C.method, JSONBridge.params(params))
    }

    /// `C`'s typed result from its JSON; a result of another shape is a failure that says so.
    func call<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> C.Result {
        try typedResult(call, try await json(call, params))
    }

    /// The events of the streaming method `C`.
    func stream<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> AsyncThrowingStream<ControlEvent, any Error> {
        try await stream(C.method, JSONBridge.params(params))
    }
}

/// `C`'s typed result from the JSON `Transport.json` returned.
func typedResult<C: ControlCall>(_ call: C.Type, _ value: JSONValue) throws -> C.Result {
    do {
        return try C.result(value)
    } catch {
        throw CLIError(.failed, "the daemon's '\(C.method.rawValue)' answer has an unexpected shape "
            + "(heartd and heartctl of different versions?): \(error)")
    }
}

struct SocketTransport: Transport {
    let client: ControlClient

    func call(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> JSONValue {
        try await client.call(method.rawValue, params: params)
    }

    func stream(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> AsyncThrowingStream<ControlEvent, any Error> {
        try await client.watch(method.rawValue, params: params)
    }
}

struct OfflineTransport: Transport {
    let queries: StoreQueries

    /// Only read methods: the file is opened read-only, and what changes the store (`delete`, `session.start`,
    /// `session.stop`) is the daemon's job — it also rotates and tags the open series a session covers.
    func call(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> JSONValue {
        try Self.readable(method)
        // Open series too (marked open), as the running daemon's checkpoints hold them.
        return try OpenSeriesQueries.checkpointed(queries).handle(method, params)
    }

    /// Throws unless `method` is a read the store file answers.
    static func readable(_ method: ControlMethod) throws {
        guard StoreQueries.answers(method), method.access == .read, !method.isStreaming else {
            throw CLIError(.needsDaemon, "'\(method.rawValue)' needs the running daemon (leave out --db)")
        }
    }

    /// The store's typed answer as `OpenSeriesQueries` makes it: no `JSONValue` built and decoded again.
    func call<C: ControlCall>(_ call: C.Type, _ params: C.Params) async throws -> C.Result {
        try Self.readable(C.method)
        return try OpenSeriesQueries.checkpointed(queries).answer(call, params)
    }

    func stream(_ method: ControlMethod, _ params: [String: JSONValue]) async throws -> AsyncThrowingStream<ControlEvent, any Error> {
        throw CLIError(.needsDaemon, "'\(method.rawValue)' needs the running daemon (leave out --db)")
    }
}

/// heartctl's errors and exit codes (documented in README.md).
struct CLIError: Error, CustomStringConvertible {
    enum Code: Int32 {
        /// A request failed (the daemon or the store said no), or a payload did not decode.
        case failed = 1
        /// The command line is wrong (unknown option, missing argument, bad value).
        case usage = 2
        /// The daemon cannot be reached.
        case unreachable = 3
        /// The sample or device does not exist.
        case notFound = 4
        /// Permission denied by the daemon.
        case denied = 5
        /// The command needs the daemon, but --db was given.
        case needsDaemon = 6
    }
    let code: Code
    let message: String

    init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    var description: String { message }
}
