import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// One connection of an `MQTTClient`: TCP (and TLS), CONNECT and CONNACK, then three tasks until it ends — the reader
/// (PUBACK, PINGRESP, incoming PUBLISH), the writer (the outgoing queue, subscriptions, PINGREQ, DISCONNECT) and the
/// keep-alive watchdog (asks for a PINGREQ when idle; drops the connection when the CONNACK or a PINGRESP is late,
/// which is also what ends a connection to a broker that stopped reading).
struct MQTTConnection: Sendable {
    let client: MQTTClient
    let channel: NIOAsyncChannel<MQTTPacket, MQTTPacket>

    init(client: MQTTClient) async throws {
        self.client = client
        let settings = client.settings
        let tls = try Self.tlsContext(settings)
        let serverName = settings.tlsServerName ?? settings.host
        let sniName: String? = (try? SocketAddress(ipAddress: serverName, port: 0)) == nil ? serverName : nil
        let maxPacketSize = settings.maxIncomingPacketSize
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.nanoseconds(Self.nanoseconds(settings.connectTimeout)))
        channel = try await bootstrap.connect(host: settings.host, port: settings.port) { channel in
            channel.eventLoop.makeCompletedFuture {
                if let tls {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: tls, serverHostname: sniName))
                    try channel.pipeline.syncOperations.addHandler(MQTTServerNameCheck(expected: serverName))
                }
                try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(MQTTPacketDecoder(maxPacketSize: maxPacketSize)))
                try channel.pipeline.syncOperations.addHandler(MessageToByteHandler(MQTTPacketEncoder()))
                return try NIOAsyncChannel<MQTTPacket, MQTTPacket>(wrappingChannelSynchronously: channel)
            }
        }
    }

    /// Until a DISCONNECT at shutdown (returns) or the connection's failure (throws the most telling of the errors
    /// its tasks met: a TLS failure or a refusal rather than the closed socket that followed it).
    func run() async throws {
        try await channel.executeThenClose { inbound, outbound in
            let (events, writer) = AsyncStream<MQTTWriterEvent>.makeStream()
            client.state.withLock { s in
                s.writer = writer
                s.wakePending = false
                s.connected = false
                s.disconnectSent = false
                s.pingSentAt = nil
                s.lastSent = .now
            }
            defer {
                client.state.withLock { s in
                    s.writer = nil
                    s.connected = false
                }
                writer.finish()
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await read(inbound, outbound, writer: writer) }
                group.addTask { try await write(outbound, events) }
                group.addTask { try await watch(writer: writer) }
                var errors: [any Error] = []
                while let result = await group.nextResult() {
                    group.cancelAll()
                    switch result {
                    case .success: if errors.isEmpty { return }
                    case let .failure(error): if !(error is CancellationError) { errors.append(error) }
                    }
                }
                let mapped = errors.map { Self.map($0, settings: client.settings) }
                throw mapped.min { $0.rank < $1.rank } ?? MQTTError(.connection, "the connection ended")
            }
        }
    }

    private func read(_ inbound: NIOAsyncChannelInboundStream<MQTTPacket>, _ outbound: NIOAsyncChannelOutboundWriter<MQTTPacket>,
                      writer: AsyncStream<MQTTWriterEvent>.Continuation) async throws {
        for try await packet in inbound {
            switch packet {
            case let .connack(sessionPresent, returnCode):
                guard returnCode == .accepted else { throw MQTTError.refusal(returnCode) }
                writer.yield(.connack(sessionPresent: sessionPresent))
            case let .puback(packetID):
                client.state.withLock { s in
                    if s.outbox.acknowledge(packetID) { s.statistics.acknowledged += 1 }
                    s.wakeWriter()
                }
            case let .publish(publish):
                if let packetID = publish.packetID { try await outbound.write(.puback(packetID: packetID)) }
                client.state.withLock { s in
                    s.statistics.received += 1
                    for continuation in s.messageSubscribers.values { continuation.yield(publish.message) }
                }
            case let .suback(_, results):
                if results.contains(0x80) { client.logger.warning("the MQTT broker refused a subscription") }
            case .pingresp:
                client.state.withLock { $0.pingSentAt = nil }
            case .connect, .subscribe, .pingreq, .disconnect:
                throw MQTTError(.protocolViolation, "the broker sent a \(packet.kind) packet")
            }
        }
        if client.state.withLock({ $0.disconnectSent }) { return }
        throw MQTTError(.connection, "the broker closed the connection")
    }

    private func write(_ outbound: NIOAsyncChannelOutboundWriter<MQTTPacket>, _ events: AsyncStream<MQTTWriterEvent>) async throws {
        let settings = client.settings
        try await outbound.write(.connect(MQTTPacket.Connect(
            clientID: settings.clientID, keepAliveSeconds: settings.keepAliveSeconds, username: settings.username,
            password: settings.password, will: settings.will)))
        var connected = false
        for await event in events {
            switch event {
            case let .connack(sessionPresent):
                connected = true
                let shuttingDown = client.state.withLock { s in
                    s.connected = true
                    s.statistics.connections += 1
                    s.subscriptionsSent = 0
                    s.outbox.connectionRestarted()
                    s.emit(.connected(sessionPresent: sessionPresent))
                    return s.shuttingDown
                }
                client.logger.info("MQTT connected", metadata: ["broker": "\(settings.host):\(settings.port)"])
                if shuttingDown {
                    try await disconnect(outbound)
                    return
                }
            case .ping:
                try await outbound.write(.pingreq)
            case .shutdown:
                guard connected else { return }
                try await drain(outbound)
                try await disconnect(outbound)
                return
            case .wake:
                break
            }
            if connected { try await drain(outbound) }
        }
    }

    private func disconnect(_ outbound: NIOAsyncChannelOutboundWriter<MQTTPacket>) async throws {
        client.state.withLock { $0.disconnectSent = true }
        try await outbound.write(.disconnect)
    }

    /// Writes subscriptions not yet made and the queue, in batches, until nothing is left to send now.
    private func drain(_ outbound: NIOAsyncChannelOutboundWriter<MQTTPacket>) async throws {
        while true {
            let batch: [MQTTPacket] = client.state.withLock { s in
                s.wakePending = false
                var packets: [MQTTPacket] = []
                if s.subscriptionsSent < s.subscriptions.count {
                    packets.append(.subscribe(packetID: s.outbox.newPacketID(), filters: Array(s.subscriptions[s.subscriptionsSent...])))
                    s.subscriptionsSent = s.subscriptions.count
                }
                while packets.count < 64, let packet = s.outbox.nextPacket() { packets.append(packet) }
                s.statistics.published += packets.filter { $0.kind == .publish }.count
                return packets
            }
            if batch.isEmpty { return }
            try await outbound.write(contentsOf: batch)
            client.state.withLock { $0.lastSent = .now }
        }
    }

    /// The CONNACK deadline, then the keep-alive: a PINGREQ after half the keep-alive without a write, the connection
    /// dropped when its PINGRESP has not come within the keep-alive.
    private func watch(writer: AsyncStream<MQTTWriterEvent>.Continuation) async throws {
        let settings = client.settings
        let start = ContinuousClock.now
        let tick = max(settings.keepAlive / 4, .milliseconds(100))
        while true {
            let now = ContinuousClock.now
            let (connected, lastSent, pingSentAt) = client.state.withLock { ($0.connected, $0.lastSent, $0.pingSentAt) }
            if !connected {
                guard now - start < settings.connectTimeout else {
                    throw MQTTError(.timeout, "no CONNACK from \(settings.host):\(settings.port) within \(settings.connectTimeout)")
                }
                try await Task.sleep(for: min(tick, settings.connectTimeout - (now - start)))
                continue
            }
            if let pingSentAt {
                guard now - pingSentAt < settings.keepAlive else {
                    throw MQTTError(.timeout, "no PINGRESP within the keep-alive (\(settings.keepAlive))")
                }
            } else if now - lastSent >= settings.keepAlive / 2 {
                client.state.withLock { $0.pingSentAt = now }
                writer.yield(.ping)
            }
            try await Task.sleep(for: tick)
        }
    }

    private static func tlsContext(_ settings: MQTTClientSettings) throws(MQTTError) -> NIOSSLContext? {
        guard let caFile = settings.tlsCAFile else { return nil }
        guard FileManager.default.isReadableFile(atPath: caFile) else { throw MQTTError(.tls, "cannot read the CA file \(caFile)") }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = .file(caFile)
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw MQTTError(.tls, "the CA file \(caFile) cannot be used: \(error)")
        }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }

    /// Any error met while connecting or connected, as an `MQTTError`.
    static func map(_ error: any Error, settings: MQTTClientSettings) -> MQTTError {
        let broker = "\(settings.host):\(settings.port)"
        switch error {
        case let error as MQTTError:
            return error
        case let error as NIOSSLError:
            if case .uncleanShutdown = error { return MQTTError(.connection, "\(broker) ended the TLS connection uncleanly") }
            return MQTTError(.tls, "TLS with \(broker) failed: \(error)")
        case let error as BoringSSLError:
            return MQTTError(.tls, "TLS with \(broker) failed: \(error)")
        case let error as NIOSSLExtraError:
            return MQTTError(.tls, "TLS with \(broker) failed: \(error)")
        case let error as ChannelError:
            if case .connectTimeout = error { return MQTTError(.timeout, "connecting to \(broker) timed out") }
            return MQTTError(.connection, "the connection to \(broker) failed: \(error)")
        case let error as NIOConnectionError:
            let reasons = error.connectionErrors.map { "\($0.target): \($0.error)" }
            return MQTTError(.connection, "cannot reach \(broker): " + (reasons.isEmpty ? "\(error)" : reasons.joined(separator: "; ")))
        default:
            return MQTTError(.connection, "the connection to \(broker) failed: \(error)")
        }
    }
}

extension MQTTError {
    /// Which of several errors of one connection explains it best (lowest first).
    var rank: Int {
        switch code {
        case .tls, .authentication, .refused, .configuration: 0
        case .packetTooLarge, .protocolViolation: 1
        case .timeout: 2
        case .connection: 3
        }
    }
}
