import Foundation
import HeartQueries
import LiveFeed
import Logging
import MQTT
import ServiceLifecycle
import Synchronization

/// heartd → MQTT (a `Service`): follows the `LiveFeed` and publishes each sensor's values, Home Assistant's discovery
/// and the availability topic through an `MQTTClient`. On every (re)connect of the client, and when Home Assistant
/// announces itself (`<prefix>/status` = `online`), everything is published again; a sensor that leaves heartd's
/// picture (forgotten) gets an empty retained config: Home Assistant removes it.
///
/// Run it after the feed and the client in a `ServiceGroup`, so that it stops first: it publishes `offline` before the
/// client's DISCONNECT (a clean stop leaves no will to fire).
public final class HeartBridge: Service, Sendable {
    public struct Settings: Sendable {
        public var topics: BridgeTopics
        public var beats: Bool
        public var expireAfterSeconds: Int
        public var version: String

        public init(topics: BridgeTopics, beats: Bool, expireAfterSeconds: Int, version: String) {
            self.topics = topics
            self.beats = beats
            self.expireAfterSeconds = expireAfterSeconds
            self.version = version
        }
    }

    let settings: Settings
    let client: MQTTClient
    let feed: LiveFeed
    let logger: Logger
    /// Per topic, the retained payload last published (to publish a retained state only when it changes), and the
    /// sensors announced.
    private let published = Mutex<Published>(Published())

    struct Published {
        var retained: [String: String] = [:]
        var sensors: Set<String> = []
        var discovery: [String: String] = [:]
    }

    public init(settings: Settings, client: MQTTClient, feed: LiveFeed, logger: Logger) {
        self.settings = settings
        self.client = client
        self.feed = feed
        self.logger = logger
    }

    public var topics: BridgeTopics { settings.topics }

    public func run() async throws {
        let updates = feed.updates()
        let events = client.events()
        let messages = client.messages()
        if let birth = topics.homeAssistantStatus { client.subscribe(birth) }
        // Not yet connected: the `.connected` event publishes everything. Publishing now as well would queue a second
        // copy of every retained topic (Home Assistant would read the discovery twice).
        if client.isConnected { publishEverything(force: true) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await update in updates.cancelOnGracefulShutdown() { self.handle(update) }
            }
            group.addTask {
                for await event in events.cancelOnGracefulShutdown() {
                    if case .connected = event { self.publishEverything(force: true) }
                }
            }
            group.addTask {
                for await message in messages.cancelOnGracefulShutdown()
                where message.topic == self.topics.homeAssistantStatus && message.string == "online" {
                    self.logger.info("Home Assistant is online: announcing the sensors again")
                    self.publishEverything(force: true)
                }
            }
            await group.waitForAll()
        }
        // Stopping: the availability goes offline before the client's DISCONNECT.
        client.publish(MQTTMessage(topic: topics.availability, string: "offline", qos: .atLeastOnce, retain: true))
    }

    func handle(_ update: LiveUpdate) {
        switch update {
        case let .daemon(reachable, reason):
            if !reachable { logger.warning("heartd is unreachable", metadata: ["reason": "\(reason ?? "")"]) }
            publishEverything(force: false)
        case let .device(device):
            let snapshot = feed.snapshot()
            if Self.isKnown(device, in: snapshot) { publish(device, sessions: snapshot.activeSessions, force: false) }
            removeForgotten(snapshot)
        case let .beats(address, beats):
            guard settings.beats, !beats.isEmpty else { return }
            client.publish(MQTTMessage(topic: topics.topic(.beats, of: address), string: SensorPayloads.beats(beats, address: address),
                                       qos: .atLeastOnce), queuing: .every)
        case .sessions:
            publishEverything(force: false)
        }
    }

    /// The availability, every sensor's discovery and values; `force`: retained values too even when unchanged (the
    /// broker may have forgotten them).
    func publishEverything(force: Bool) {
        let snapshot = feed.snapshot()
        client.publish(MQTTMessage(topic: topics.availability, string: snapshot.daemonReachable ? "online" : "offline",
                                   qos: .atLeastOnce, retain: true))
        for device in snapshot.devices where Self.isKnown(device, in: snapshot) {
            publish(device, sessions: snapshot.activeSessions, force: force)
        }
        removeForgotten(snapshot)
    }

    /// Whether heartd still knows `device`: connected, or on its allow-list (`status.capture.allow_list`; `forget`
    /// takes it off). Without an allow-list (the simulator): listed in the status's devices. (The status's `devices`
    /// alone cannot tell: the pipeline keeps every device it saw until heartd restarts.) A sensor captured only
    /// through `auto_heart_rate` is on no allow-list: it is removed when it disconnects and announced again when it
    /// comes back (same unique ids, so Home Assistant keeps its history).
    static func isKnown(_ device: LiveDevice, in snapshot: LiveSnapshot) -> Bool {
        guard !device.connected, let status = snapshot.status else { return true }
        let same = { (address: String) in address.caseInsensitiveCompare(device.address) == .orderedSame }
        if let allowList = status.capture.allowList { return allowList.contains(where: same) }
        return status.devices.contains { same($0.address) }
    }

    private func publish(_ device: LiveDevice, sessions: [ActiveSessionStatus], force: Bool) {
        let address = device.address
        if let topic = topics.discovery(of: address) {
            let config = DiscoveryConfig(address: address, info: device.info, displayName: device.displayName, topics: topics,
                                         expireAfterSeconds: settings.expireAfterSeconds, version: settings.version).json()
            let changed = published.withLock { p in
                p.sensors.insert(address)
                defer { p.discovery[address] = config }
                return p.discovery[address] != config
            }
            if changed || force { client.publish(MQTTMessage(topic: topic, string: config, qos: .atLeastOnce, retain: true)) }
        } else {
            published.withLock { _ = $0.sensors.insert(address) }
        }
        let label = SensorPayloads.sessionLabel(for: address, in: sessions)
        for (value, payload) in SensorPayloads.values(of: device, session: label) {
            guard let payload else { continue }
            let topic = topics.topic(value, of: address)
            if value.isRetained {
                let changed = published.withLock { p in
                    defer { p.retained[topic] = payload }
                    return p.retained[topic] != payload
                }
                guard changed || force else { continue }
                client.publish(MQTTMessage(topic: topic, string: payload, qos: .atLeastOnce, retain: true))
            } else if !force || device.state == .streaming {
                client.publish(MQTTMessage(topic: topic, string: payload))
            }
        }
    }

    /// Sensors announced that heartd no longer lists (forgotten): their config and retained values are cleared.
    private func removeForgotten(_ snapshot: LiveSnapshot) {
        guard snapshot.daemonReachable else { return }
        let present = Set(snapshot.devices.filter { Self.isKnown($0, in: snapshot) }.map(\.address))
        let gone = published.withLock { p -> Set<String> in
            let gone = p.sensors.subtracting(present)
            p.sensors.subtract(gone)
            for address in gone {
                p.discovery[address] = nil
                for value in SensorValue.allCases { p.retained[topics.topic(value, of: address)] = nil }
            }
            return gone
        }
        for address in gone {
            logger.info("a sensor left heartd: removing it from Home Assistant", metadata: ["address": "\(address)"])
            if let topic = topics.discovery(of: address) {
                client.publish(MQTTMessage(topic: topic, payload: [], qos: .atLeastOnce, retain: true))
            }
            for value in SensorValue.allCases where value.isRetained {
                client.publish(MQTTMessage(topic: topics.topic(value, of: address), payload: [], qos: .atLeastOnce, retain: true))
            }
        }
    }
}
