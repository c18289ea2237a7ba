import NIOCore

/// What happened to the client's connection, for its users (a bridge republishes everything on `.connected`).
public enum MQTTClientEvent: Sendable, Hashable {
    case connected(sessionPresent: Bool)
    case disconnected(MQTTError)
}

/// Counters of one client since it started.
public struct MQTTClientStatistics: Sendable, Hashable {
    /// PUBLISH packets written (QoS 1 resends included).
    public var published = 0
    /// Messages dropped because the outgoing queue was full.
    public var dropped = 0
    /// QoS 1 messages the broker acknowledged.
    public var acknowledged = 0
    /// Messages received on the subscriptions.
    public var received = 0
    /// Successful connections (CONNACK accepted).
    public var connections = 0
    /// Connections lost or refused, and attempts that failed.
    public var failures = 0
    /// Of those, the broker's bad bytes and oversized packets.
    public var protocolErrors = 0
    /// Messages waiting to be sent, and QoS 1 messages sent and not yet acknowledged.
    public var queued = 0
    public var inFlight = 0
    public var lastError: MQTTError?
}

/// What the writer of one connection waits for.
enum MQTTWriterEvent: Sendable {
    /// Messages or a subscription were queued, or a PUBACK made room in flight.
    case wake
    case connack(sessionPresent: Bool)
    /// The keep-alive watchdog asks for a PINGREQ.
    case ping
    /// Graceful shutdown: send what is queued, then DISCONNECT.
    case shutdown
}

/// The client's mutable state, under its lock.
struct MQTTClientState {
    var outbox: MQTTOutbox
    var subscriptions: [MQTTPacket.Subscription] = []
    var subscriptionsSent = 0
    var statistics = MQTTClientStatistics()
    var messageSubscribers: [Int: AsyncStream<MQTTMessage>.Continuation] = [:]
    var eventSubscribers: [Int: AsyncStream<MQTTClientEvent>.Continuation] = [:]
    var nextSubscriber = 0
    var shuttingDown = false
    /// The current connection's writer, while there is one.
    var writer: AsyncStream<MQTTWriterEvent>.Continuation?
    var wakePending = false
    /// Ends the back-off sleep at graceful shutdown.
    var backoffWake: AsyncStream<Void>.Continuation?
    var connected = false
    /// This connection's DISCONNECT is sent: the broker closing the socket now is the end we asked for.
    var disconnectSent = false
    var lastSent = ContinuousClock.now
    var pingSentAt: ContinuousClock.Instant?

    /// Wakes the writer unless a wake is already pending.
    mutating func wakeWriter() {
        guard let writer, !wakePending else { return }
        wakePending = true
        writer.yield(.wake)
    }

    mutating func emit(_ event: MQTTClientEvent) {
        for continuation in eventSubscribers.values { continuation.yield(event) }
    }
}
