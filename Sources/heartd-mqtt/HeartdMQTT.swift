import ArgumentParser
import Foundation
import HeartdConfig
import HeartdCommandLine
import HeartQueries
import LiveFeed
import Logging
import MQTT
import MQTTBridge
import ServiceLifecycle

/// `heartd-mqtt`: heart rate into MQTT with Home Assistant discovery (docs/MQTT.md). Its own program, process and
/// unit (systemd/heartd-mqtt.service): network, no Bluetooth, no store; a client of heartd's control socket.
struct HeartdMQTT: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartd-mqtt", abstract: "Publish heartd's live sensors to an MQTT broker ([mqtt] settings).",
        discussion: """
        Reads [mqtt] from the same heartd.toml as heartd (`heartd check-config` shows it) and follows heartd's control \
        socket. Exit status: 0 when a signal stopped it; 64 on a bad option or configuration, or no mqtt.host. \
        `heartd-mqtt check` connects once: 0 accepted, 2 broker unreachable, 3 wrong credentials or refused, 4 TLS \
        failure, 5 the broker does not speak MQTT 3.1.1.
        """,
        version: HeartdVersion.string,
        subcommands: [Serve.self, Check.self], defaultSubcommand: Serve.self)
}

/// What `check` exits with: one status per reason a connection fails.
enum CheckStatus: Int32 {
    case accepted = 0
    case unreachable = 2
    case credentials = 3
    case tls = 4
    case protocolViolation = 5
    case configuration = 64

    init(_ error: MQTTError) {
        switch error.code {
        case .connection, .timeout: self = .unreachable
        case .authentication, .refused: self = .credentials
        case .tls: self = .tls
        case .protocolViolation, .packetTooLarge: self = .protocolViolation
        case .configuration: self = .configuration
        }
    }
}

struct MQTTContext {
    let logger: Logger
    let configuration: HeartdConfiguration
    let topics: BridgeTopics
    let client: MQTTClientSettings

    init(_ options: ConfigOptions) throws {
        configuration = try options.load()
        logger = bootstrapLogging(configuration)
        guard configuration.mqtt.isConfigured else {
            throw ValidationError("mqtt.host is not set: add a [mqtt] section with host = \"broker.example\"")
        }
        topics = BridgeTopics(configuration.mqtt)
        do {
            client = try MQTTClientSettings(configuration.mqtt, topics: topics, environment: ProcessInfo.processInfo.environment)
            try client.validate()
        } catch {
            throw ValidationError("[mqtt]: \(error.detail)")
        }
    }
}

extension HeartdMQTT {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "run", abstract: "Publish until stopped (the default).")

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            let context = try MQTTContext(options)
            let logger = context.logger
            let socket = context.configuration.controlSocketPath(environment: ProcessInfo.processInfo.environment)
            let feed = LiveFeed(settings: LiveFeedSettings(socketPath: socket), logger: logger)
            let client = MQTTClient(settings: context.client, logger: logger)
            let mqtt = context.configuration.mqtt
            let bridge = HeartBridge(settings: HeartBridge.Settings(
                topics: context.topics, beats: mqtt.beats, expireAfterSeconds: Int(mqtt.expireAfterSeconds.rounded()),
                version: HeartdVersion.string), client: client, feed: feed, logger: logger)
            logger.info("heartd-mqtt starting", metadata: [
                "broker": "\(context.client.host):\(context.client.port)", "tls": "\(context.client.tlsCAFile != nil)",
                "base_topic": "\(context.topics.base)", "control_socket": "\(socket)"])
            // Stopped in reverse order: the bridge publishes `offline`, the client sends it and DISCONNECTs, then the feed.
            let group = ServiceGroup(configuration: ServiceGroupConfiguration(
                services: [feed, client, bridge], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
            try await group.run()
        }
    }

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Connect to the broker once (TLS, credentials), then exit: 0, 2 unreachable, 3 credentials, 4 TLS, 5 protocol.")

        @OptionGroup var options: ConfigOptions

        func run() async throws {
            let context = try MQTTContext(options)
            do {
                try await MQTTClient.check(settings: context.client, logger: context.logger)
                print("heartd-mqtt: \(context.client.host):\(context.client.port) accepted the connection")
            } catch {
                let status = CheckStatus(error)
                FileHandle.standardError.write(Data("heartd-mqtt check: \(error)\n".utf8))
                throw ExitCode(status.rawValue)
            }
        }
    }
}
