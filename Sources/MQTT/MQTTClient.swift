import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A small MQTT 3.1.1 client (a `Service`): connects, reconnects with back-off, keeps the connection alive, sends
/// the bounded outgoing queue (`MQTTOutbox`), delivers the messages of its subscriptions. It knows nothing of heartd.
///
/// `publish` never blocks and never fails: with no broker the message waits in the bounded queue. Every connection
/// is a clean session: the subscriptions are made again, unacknowledged QoS 1 messages are sent again (DUP), and
/// users learn of it through `events()` (`.connected`) to republish what a restarted broker forgot.
public final class MQTTClient: Service, Sendable {
    public let settings: MQTTClientSettings
    let logger: Logger
    let state: Mutex<MQTTClientState>

    public init(settings: MQTTClientSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        state = Mutex(MQTTClientState(outbox: MQTTOutbox(capacity: settings.maxQueuedMessages,
                                                         maxInFlight: settings.maxInFlight)))
    }

    /// Queues `message`; it goes out as soon as the connection allows.
    public func publish(_ message: MQTTMessage, queuing: MQTTQueuing = .latestPerTopic) {
        state.withLock { s in
            s.outbox.enqueue(message, queuing: queuing)
            s.wakeWriter()
        }
    }

    /// Adds a subscription, made now if connected and again on every connection.
    public func subscribe(_ filter: String, qos: MQTTQoS = .atMostOnce) {
        state.withLock { s in
            s.subscriptions.append(MQTTPacket.Subscription(filter: filter, qos: qos))
            s.wakeWriter()
        }
    }

    /// The messages of the subscriptions, from now on (bounded: a slow reader loses the oldest).
    public func messages(buffer: Int = 256) -> AsyncStream<MQTTMessage> {
        let (stream, continuation) = AsyncStream<MQTTMessage>.makeStream(bufferingPolicy: .bufferingNewest(buffer))
        let id = state.withLock { s in
            s.nextSubscriber += 1
            s.messageSubscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.messageSubscribers.removeValue(forKey: id) } }
        return stream
    }

    /// Connections made and lost, from now on.
    public func events(buffer: Int = 64) -> AsyncStream<MQTTClientEvent> {
        let (stream, continuation) = AsyncStream<MQTTClientEvent>.makeStream(bufferingPolicy: .bufferingNewest(buffer))
        let id = state.withLock { s in
            s.nextSubscriber += 1
            s.eventSubscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLock { _ = $0.eventSubscribers.removeValue(forKey: id) } }
        return stream
    }

    public func statistics() -> MQTTClientStatistics {
        state.withLock { s in
            var statistics = s.statistics
            statistics.dropped = s.outbox.dropped
            statistics.queued = s.outbox.waitingCount
            statistics.inFlight = s.outbox.inFlight.count
            return statistics
        }
    }

    public var isConnected: Bool { state.withLock { $0.connected } }

    /// Connects and reconnects until graceful shutdown (queued messages are sent, then DISCONNECT: no will) or
    /// cancellation (the connection is dropped: the broker publishes the will).
    public func run() async throws {
        try settings.validate()
        await withGracefulShutdownHandler {
            var backoff = settings.minBackoff
            while !Task.isCancelled && !state.withLock({ $0.shuttingDown }) {
                let connectionsBefore = state.withLock { $0.statistics.connections }
                do {
                    try await connectOnce()
                    if state.withLock({ $0.shuttingDown }) { return }
                    throw MQTTError(.connection, "the broker closed the connection")
                } catch {
                    if Task.isCancelled { return }
                    let accepted = state.withLock { $0.statistics.connections } > connectionsBefore
                    let failure = MQTTConnection.map(error, settings: settings)
                    state.withLock { s in
                        s.statistics.failures += 1
                        if failure.code == .protocolViolation || failure.code == .packetTooLarge { s.statistics.protocolErrors += 1 }
                        s.statistics.lastError = failure
                        s.emit(.disconnected(failure))
                    }
                    if accepted { backoff = settings.minBackoff }
                    logger.warning("MQTT connection failed", metadata: [
                        "broker": "\(settings.host):\(settings.port)", "code": "\(failure.code.rawValue)", "error": "\(failure.detail)",
                        "retry_in": "\(backoff)"])
                }
                await sleepUnlessShuttingDown(backoff)
                backoff = min(backoff * 2, settings.maxBackoff)
            }
        } onGracefulShutdown: { [self] in
            state.withLock { s in
                s.shuttingDown = true
                s.writer?.yield(.shutdown)
                s.backoffWake?.finish()
            }
        }
    }

    /// One connection from connect to its end: returns after a DISCONNECT at shutdown, throws otherwise.
    private func connectOnce() async throws {
        let connection = try await MQTTConnection(client: self)
        try await connection.run()
    }

    private func sleepUnlessShuttingDown(_ delay: Duration) async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let stopping = state.withLock { s in
            if s.shuttingDown { return true }
            s.backoffWake = continuation
            return false
        }
        guard !stopping else { return }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await Task.sleep(for: delay) }
            group.addTask { for await _ in stream {} }
            await group.next()
            group.cancelAll()
        }
        state.withLock { $0.backoffWake = nil }
    }

    /// `check`: connects once (TLS, credentials, CONNACK), then disconnects. Throws the reason it could not.
    public static func check(settings: MQTTClientSettings, logger: Logger) async throws(MQTTError) {
        try settings.validate()
        let client = MQTTClient(settings: settings, logger: logger)
        client.state.withLock { $0.shuttingDown = true }  // the first CONNACK ends it with DISCONNECT
        do {
            let connection = try await MQTTConnection(client: client)
            try await connection.run()
        } catch {
            throw MQTTConnection.map(error, settings: settings)
        }
    }
}
