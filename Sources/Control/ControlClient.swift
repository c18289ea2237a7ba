import Dispatch

/// A client of the control socket, for `heartctl` and tests.
///
/// I/O is blocking with timeouts, but runs on the client's own serial queue, never on the caller's
/// task: `async` methods suspend until the queue has an answer.
///
/// `@unchecked Sendable`: the socket and `nextID` are only touched on `queue`.
public final class ControlClient: @unchecked Sendable {
    private let socket: LineSocket
    private let queue = DispatchQueue(label: "heartd.control.client")
    private var nextID = 1
    /// How long ``send(_:params:)`` waits for a response.
    public let timeout: Duration

    /// Connects to the control socket at `path`.
    public init(path: String, timeout: Duration = .seconds(10)) throws(ControlSocketError) {
        socket = try LineSocket(path: path)
        self.timeout = timeout
    }

    /// Sends a request and waits for its response (error responses are returned, not thrown).
    public func send(_ method: String, params: [String: JSONValue] = [:]) async throws(ControlSocketError) -> ControlResponse {
        let result: Result<ControlResponse, ControlSocketError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: Result { () throws(ControlSocketError) in try exchange(method, params) })
            }
        }
        return try result.get()
    }

    /// Sends a request and returns its result; an error response is thrown as ``ControlError``,
    /// a socket failure as ``ControlSocketError``.
    public func call(_ method: String, params: [String: JSONValue] = [:]) async throws -> JSONValue {
        let response = try await send(method, params: params)
        switch response.outcome {
        case .result(let value): return value
        case .error(let error): throw error
        }
    }

    /// Starts a streaming request and returns its events. The stream finishes when
    /// the server ends it, throws ``ControlSocketError`` `.closed` if the server drops the client,
    /// and closes the connection when the consumer stops iterating.
    public func watch(_ method: String, params: [String: JSONValue] = [:]) async throws -> AsyncThrowingStream<ControlEvent, any Error> {
        try await follow(method, params) { line in
            (try? JSONLine.decode(JSONValue.self, from: line)).flatMap(ControlEvent.init(json:))
        }
    }

    /// `watch`, with each event's line as it came (no newline), for a client that decodes it straight into its own
    /// type: one decoding instead of `JSONValue` first (LiveFeed, which follows every notification).
    public func watchLines(_ method: String, params: [String: JSONValue] = [:]) async throws -> AsyncThrowingStream<[UInt8], any Error> {
        try await follow(method, params) { $0 }
    }

    /// `watchLines` for a client that handles each line where it is read: `handle` runs on the client's reading
    /// thread, in order, as each line arrives, with no task woken per event (LiveFeed, which follows every
    /// notification). The returned stream yields nothing: it finishes when the server ends the stream, throws as
    /// `watch`'s does, and ending its iteration closes the connection.
    public func watchLines(_ method: String, params: [String: JSONValue] = [:],
                           handle: @escaping @Sendable ([UInt8]) -> Void) async throws -> AsyncThrowingStream<Never, any Error> {
        try await follow(method, params) { line -> Never? in
            handle(line)
            return nil
        }
    }

    private func follow<Element: Sendable>(_ method: String, _ params: [String: JSONValue],
                                           _ element: @escaping @Sendable ([UInt8]) -> Element?) async throws -> AsyncThrowingStream<Element, any Error> {
        let response = try await send(method, params: params)
        if let error = response.error { throw error }
        let (stream, continuation) = AsyncThrowingStream<Element, any Error>.makeStream()
        continuation.onTermination = { _ in self.close() }
        queue.async { [self] in
            while true {
                do {
                    let line = try socket.readLine(timeout: nil)
                    if let value = element(line) { continuation.yield(value) }
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
            }
        }
        return stream
    }

    /// Shuts the connection down.
    public func close() { socket.shutdown() }

    /// Sends raw bytes as one line and returns the next response line, parsed (tests and debugging).
    func sendRawLine(_ bytes: [UInt8]) async throws(ControlSocketError) -> ControlResponse {
        let result: Result<ControlResponse, ControlSocketError> = await withCheckedContinuation { continuation in
            queue.async { [self] in
                continuation.resume(returning: Result { () throws(ControlSocketError) in
                    try socket.write(bytes)
                    return try readResponse(id: nil)
                })
            }
        }
        return try result.get()
    }

    // MARK: - On queue

    private func exchange(_ method: String, _ params: [String: JSONValue]) throws(ControlSocketError) -> ControlResponse {
        let id = nextID
        nextID += 1
        try socket.write(ControlRequest(id: id, method: method, params: params).encodedLine())
        return try readResponse(id: id)
    }

    /// Reads lines until a response for `id` (or one with a null id: a server-level error) arrives;
    /// events seen meanwhile are skipped.
    private func readResponse(id: Int?) throws(ControlSocketError) -> ControlResponse {
        while true {
            let line = try socket.readLine(timeout: timeout)
            guard let value = try? JSONLine.decode(JSONValue.self, from: line) else {
                throw ControlSocketError(.protocolViolation, "server sent a line that is not JSON")
            }
            if value["event"] != nil { continue }
            // From the value parsed above, not the text again (a status of 32 devices is tens of KB).
            guard let response = try? JSONValueDecoder().decode(ControlResponse.self, from: value) else {
                throw ControlSocketError(.protocolViolation, "server sent an invalid response")
            }
            if id == nil || response.id == nil || response.id == id { return response }
        }
    }
}
