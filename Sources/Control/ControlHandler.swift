/// What the daemon implements to serve control requests.
///
/// The server parses lines, answers `hello`, enforces access classes and framing; the handler
/// only sees well-formed requests from permitted peers.
public protocol ControlHandler: Sendable {
    /// The access class of `method`, or `nil` when the method does not exist (→ `unknown-method`).
    func access(for method: String) -> ControlAccess?

    /// Whether `method` streams events (like `watch`) instead of returning one response.
    func isStreaming(_ method: String) -> Bool

    /// Handles a non-streaming request. The response's id is set to the request's by the server.
    func handle(_ request: ControlRequest, peer: PeerCredentials) async -> ControlResponse

    /// Starts a stream for a streaming method. On success the server answers
    /// `{"id": n, "result": {"protocol": …, "streaming": true}}` and then writes each event as a line
    /// until the stream finishes or the client goes away (the stream is then cancelled, so its
    /// `onTermination` runs — unsubscribe there). On failure the error is sent as the response.
    func watch(_ request: ControlRequest, peer: PeerCredentials) async -> Result<AsyncStream<ControlEvent>, ControlError>
}

extension ControlHandler {
    public func watch(_ request: ControlRequest, peer: PeerCredentials) async -> Result<AsyncStream<ControlEvent>, ControlError> {
        .failure(ControlError(.unknownMethod, "method '\(request.method)' does not stream"))
    }
}
