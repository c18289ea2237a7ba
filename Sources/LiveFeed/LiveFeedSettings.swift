/// How a network service follows heartd: its control socket, and how the live picture is drawn from it.
public struct LiveFeedSettings: Sendable, Hashable {
    /// heartd's control socket.
    public var socketPath: String
    /// The rolling window of each device's RMSSD.
    public var rmssdWindow: Duration = .seconds(60)
    /// A connected device with no notification for this long is `no-signal`.
    public var silenceAfter: Duration = .seconds(5)
    /// Reconnection to heartd: the first wait, doubling up to `maxBackoff`.
    public var minBackoff: Duration = .milliseconds(250)
    public var maxBackoff: Duration = .seconds(10)
    /// How often the status is asked again while connected (battery, counters, a missed event's effect).
    public var statusInterval: Duration = .seconds(30)

    public init(socketPath: String) {
        self.socketPath = socketPath
    }
}
