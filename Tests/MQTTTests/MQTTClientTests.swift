import Foundation
import Logging
import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestBus
@testable import MQTT

/// The client against a real mosquitto (plain and TLS listeners, a password file) and against fake brokers.
@Suite(.serialized) struct MQTTClientTests {
    let logger = Logger(label: "mqtt-test")

    func settings(_ broker: MosquittoBroker, clientID: String = "test-\(UUID().uuidString.prefix(6))") -> MQTTClientSettings {
        var settings = MQTTClientSettings(host: "127.0.0.1", port: broker.port, clientID: clientID)
        settings.username = MosquittoBroker.user
        settings.password = MosquittoBroker.password
        settings.keepAlive = .seconds(2)
        settings.minBackoff = .milliseconds(100)
        settings.maxBackoff = .milliseconds(500)
        return settings
    }

    /// Runs `client` until the body returns, then cancels it (a dropped connection, as a crash would).
    func running<T>(_ client: MQTTClient, _ body: () async throws -> T) async rethrows -> T {
        let task = Task { try await client.run() }
        defer { task.cancel() }
        return try await body()
    }

    @Test func publishesWithRetainFlagsAndQoS() async throws {
        let broker = try MosquittoBroker()
        let subscriber = try broker.subscriber(qos: 1)
        let client = MQTTClient(settings: settings(broker), logger: logger)
        await running(client) {
            client.publish(MQTTMessage(topic: "t/state", string: "72", retain: true))
            client.publish(MQTTMessage(topic: "t/event", string: "{\"n\":1}", qos: .atLeastOnce), queuing: .every)
            #expect(await eventually { subscriber.messages().count == 2 })
            #expect(subscriber.messages(topic: "t/state") == [ObservedMessage(retained: false, qos: 0, topic: "t/state", payload: "72")])
            #expect(subscriber.messages(topic: "t/event") == [ObservedMessage(retained: false, qos: 1, topic: "t/event", payload: "{\"n\":1}")])
            #expect(await eventually { client.statistics().acknowledged == 1 })
        }
        // A new subscriber gets the retained message, flagged as retained.
        let late = try broker.subscriber(topics: ["t/state"])
        #expect(await eventually { late.messages() == [ObservedMessage(retained: true, qos: 0, topic: "t/state", payload: "72")] })
    }

    @Test func receivesTheMessagesOfItsSubscriptions() async throws {
        let broker = try MosquittoBroker()
        let client = MQTTClient(settings: settings(broker), logger: logger)
        client.subscribe("homeassistant/status")
        let messages = client.messages()
        await running(client) {
            #expect(await eventually { client.isConnected })
            // The SUBACK is not awaited: publish until one arrives.
            let received = Task {
                for await message in messages where message.topic == "homeassistant/status" { return message.string }
                return ""
            }
            #expect(await eventually {
                try broker.publish(topic: "homeassistant/status", payload: "online")
                return client.statistics().received > 0
            })
            #expect(await received.value == "online")
        }
    }

    @Test func theWillIsPublishedWhenTheConnectionDropsWithoutDisconnect() async throws {
        let broker = try MosquittoBroker()
        let subscriber = try broker.subscriber(topics: ["t/availability"])
        var s = settings(broker)
        s.will = MQTTWill(topic: "t/availability", string: "offline")
        let client = MQTTClient(settings: s, logger: logger)
        let task = Task { try await client.run() }
        #expect(await eventually { client.isConnected })
        client.publish(MQTTMessage(topic: "t/availability", string: "online", qos: .atLeastOnce, retain: true))
        #expect(await eventually { subscriber.messages().map(\.payload) == ["online"] })
        task.cancel()
        #expect(await eventually(timeout: 3) { subscriber.messages().map(\.payload) == ["online", "offline"] })
    }

    @Test func reconnectsAfterABrokerRestartAndTellsItsUsers() async throws {
        let broker = try MosquittoBroker()
        let client = MQTTClient(settings: settings(broker), logger: logger)
        let events = client.events()
        let seen = Task {
            var list: [String] = []
            for await event in events {
                switch event {
                case .connected: list.append("connected")
                case .disconnected: list.append("disconnected")
                }
                if list.filter({ $0 == "connected" }).count == 2 { break }
            }
            return list
        }
        try await running(client) {
            #expect(await eventually { client.isConnected })
            broker.stop()
            #expect(await eventually { !client.isConnected })
            client.publish(MQTTMessage(topic: "t/after", string: "queued while down", retain: true))
            try broker.start()
            #expect(await eventually(timeout: 5) { client.isConnected })
            let subscriber = try broker.subscriber(topics: ["t/after"])
            #expect(await eventually { subscriber.messages().map(\.payload) == ["queued while down"] })
        }
        let list = await seen.value
        #expect(list.first == "connected" && list.last == "connected" && list.contains("disconnected"))
    }

    @Test func noQoS1MessageIsLostAcrossABrokerRestart() async throws {
        let broker = try MosquittoBroker(persistence: true)
        let subscriber = try broker.subscriber(topics: ["t/beats"], qos: 1, persistentID: "observer")
        let client = MQTTClient(settings: settings(broker), logger: logger)
        try await running(client) {
            #expect(await eventually { client.isConnected })
            for n in 1...300 {
                client.publish(MQTTMessage(topic: "t/beats", string: "\(n)", qos: .atLeastOnce), queuing: .every)
                if n == 100 { broker.stop() }
                if n == 200 { try broker.start() }
                try await Task.sleep(for: .milliseconds(5))
            }
            let expected = Set((1...300).map(String.init))
            #expect(await eventually(timeout: 30) { Set(subscriber.messages().map(\.payload)) == expected })
            #expect(client.statistics().dropped == 0)
        }
    }

    @Test func checkReportsWrongCredentialsUnreachableBrokersAndTLSFailures() async throws {
        let broker = try MosquittoBroker()
        try await MQTTClient.check(settings: settings(broker), logger: logger)

        var wrong = settings(broker)
        wrong.password = "not-the-password"
        await #expect { try await MQTTClient.check(settings: wrong, logger: logger) } throws: {
            ($0 as? MQTTError)?.code == .authentication
        }

        var unreachable = settings(broker)
        unreachable.port = PostgresServer.freePort()
        await #expect { try await MQTTClient.check(settings: unreachable, logger: logger) } throws: {
            ($0 as? MQTTError)?.code == .connection
        }

        var tls = settings(broker)
        tls.port = broker.tlsPort
        tls.tlsCAFile = broker.caFile
        tls.tlsServerName = "localhost"
        try await MQTTClient.check(settings: tls, logger: logger)

        var otherCA = tls
        otherCA.tlsCAFile = broker.otherCAFile
        await #expect { try await MQTTClient.check(settings: otherCA, logger: logger) } throws: {
            ($0 as? MQTTError)?.code == .tls
        }
    }

    /// The broker's certificate (signed by the right CA) names `localhost` and 127.0.0.1. A client that expects another
    /// name is refused even though it connects to 127.0.0.1: the IP address in the certificate does not stand in for
    /// the expected name. The right name, by `tlsServerName` or as the host itself, passes.
    @Test func aCertificateForAnotherNameIsRefused() async throws {
        let broker = try MosquittoBroker()
        var tls = settings(broker)
        tls.port = broker.tlsPort
        tls.tlsCAFile = broker.caFile

        var otherName = tls
        otherName.tlsServerName = "broker.example"
        await #expect { try await MQTTClient.check(settings: otherName, logger: logger) } throws: { error in
            guard let error = error as? MQTTError else { return false }
            return error.code == .tls && error.detail.contains("broker.example")
        }

        var byName = tls
        byName.host = "localhost"
        try await MQTTClient.check(settings: byName, logger: logger)
        var byNameAndServerName = tls
        byNameAndServerName.tlsServerName = "LOCALHOST"
        try await MQTTClient.check(settings: byNameAndServerName, logger: logger)
        var byAddress = tls
        byAddress.tlsServerName = nil
        try await MQTTClient.check(settings: byAddress, logger: logger)
        var otherAddress = tls
        otherAddress.tlsServerName = "127.0.0.2"
        await #expect { try await MQTTClient.check(settings: otherAddress, logger: logger) } throws: {
            ($0 as? MQTTError)?.code == .tls
        }
    }

    @Test(arguments: [Fault.garbage, .oversized])
    func aBrokerSendingGarbageOrAnOversizedPacketIsDroppedAndRetried(fault: Fault) async throws {
        let fake = try FakeBroker { fd in
            guard FakeBroker.readPacket(fd) != nil else { return }  // CONNECT
            switch fault {
            case .garbage:
                FakeBroker.send(fd, [0x00, 0x05, 1, 2, 3, 4, 5])
            case .oversized:
                FakeBroker.send(fd, [0x20, 2, 0, 0])  // CONNACK accepted
                FakeBroker.send(fd, [0x30, 0x80, 0x80, 0x40] + [UInt8](repeating: 0x41, count: 4096))  // 1 MiB announced
            }
            while FakeBroker.readPacket(fd) != nil {}
        }
        var s = MQTTClientSettings(host: "127.0.0.1", port: fake.port, clientID: "victim")
        s.minBackoff = .milliseconds(50)
        s.maxBackoff = .milliseconds(100)
        s.maxIncomingPacketSize = 64 * 1024
        let client = MQTTClient(settings: s, logger: logger)
        await running(client) {
            #expect(await eventually { fake.connections >= 3 })
            let statistics = client.statistics()
            #expect(statistics.protocolErrors >= 2)
            #expect(statistics.lastError?.code == (fault == .garbage ? .protocolViolation : .packetTooLarge))
        }
    }

    enum Fault: Sendable { case garbage, oversized }

    @Test func aBrokerThatStopsAnsweringIsDroppedWithinTheKeepAlive() async throws {
        let fake = try FakeBroker { fd in
            guard FakeBroker.readPacket(fd) != nil else { return }
            FakeBroker.send(fd, [0x20, 2, 0, 0])
            while FakeBroker.readPacket(fd) != nil {}  // reads, never answers a PINGREQ
        }
        var s = MQTTClientSettings(host: "127.0.0.1", port: fake.port, clientID: "victim")
        s.keepAlive = .seconds(1)
        s.minBackoff = .seconds(5)
        let client = MQTTClient(settings: s, logger: logger)
        let start = ContinuousClock.now
        await running(client) {
            #expect(await eventually { client.statistics().lastError?.code == .timeout })
            #expect(ContinuousClock.now - start < .seconds(4))
        }
    }

    @Test func serverNamesMatchAsRFC6125Says() {
        let names: [MQTTServerNameCheck.SubjectName] = [.dns("Broker.LAN"), .dns("*.mqtt.example"), .ip([192, 0, 2, 7])]
        #expect(MQTTServerNameCheck.names(names, include: "broker.lan"))
        #expect(MQTTServerNameCheck.names(names, include: "broker.lan."))
        #expect(MQTTServerNameCheck.names(names, include: "a.mqtt.example"))
        #expect(MQTTServerNameCheck.names(names, include: "192.0.2.7"))
        #expect(!MQTTServerNameCheck.names(names, include: "a.b.mqtt.example"))
        #expect(!MQTTServerNameCheck.names(names, include: "mqtt.example"))
        #expect(!MQTTServerNameCheck.names(names, include: "other.lan"))
        #expect(!MQTTServerNameCheck.names(names, include: "192.0.2.8"))
        #expect(!MQTTServerNameCheck.matches(host: "a.example", pattern: "*.example"))
        #expect(!MQTTServerNameCheck.matches(host: "ab.example.org", pattern: "a*.example.org"))
    }

    /// A broker that accepts, answers the CONNECT and then never reads again: its receive buffer and the client's
    /// send buffer fill, the writer waits. The client's memory stays bounded (the outgoing queue drops the oldest
    /// events beyond its limit), the stall is found by the keep-alive (the PINGREQ cannot even be sent, no PINGRESP
    /// comes), and the connection is dropped, counted and made again.
    @Test func aBrokerThatStopsReadingCostsBoundedMemoryAndIsDroppedAndRemade() async throws {
        let done = Mutex(false)
        let fake = try FakeBroker { fd in
            var small: Int32 = 4096
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            guard FakeBroker.readPacket(fd) != nil else { return }  // CONNECT
            FakeBroker.send(fd, [0x20, 2, 0, 0])  // CONNACK accepted; never reads again
            while !done.withLock({ $0 }) { usleep(50_000) }
        }
        defer { done.withLock { $0 = true } }
        var s = MQTTClientSettings(host: "127.0.0.1", port: fake.port, clientID: "victim")
        s.keepAlive = .seconds(1)
        s.minBackoff = .milliseconds(100)
        s.maxBackoff = .milliseconds(200)
        s.maxQueuedMessages = 200
        let client = MQTTClient(settings: s, logger: logger)
        let payload = [UInt8](repeating: 0x41, count: 16 * 1024)
        await running(client) {
            #expect(await eventually { client.isConnected })
            // 16 KiB events until the writer has waited long enough to be found out, twice: far more than the socket
            // buffers hold (the queue keeps at most 200 of them, 3.2 MiB).
            let start = ContinuousClock.now
            var sent = 0
            while client.statistics().failures < 2 && ContinuousClock.now - start < .seconds(30) {
                for _ in 0..<50 {
                    client.publish(MQTTMessage(topic: "t/event", payload: payload, qos: .atLeastOnce), queuing: .every)
                    sent += 1
                }
                #expect(client.statistics().queued <= 200)
                try? await Task.sleep(for: .milliseconds(20))
            }
            let statistics = client.statistics()
            #expect(statistics.failures >= 2)
            #expect(statistics.lastError?.code == .timeout)
            #expect(statistics.dropped > 0 && statistics.queued + statistics.inFlight <= 200 + 64)
            #expect(await eventually { fake.connections >= 3 })
            #expect(statistics.published < sent)
        }
    }
}
