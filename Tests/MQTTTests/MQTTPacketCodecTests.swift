import NIOCore
import Testing
@testable import MQTT

@Suite struct MQTTPacketCodecTests {
    private func bytes(_ packet: MQTTPacket) -> [UInt8] {
        var buffer = ByteBuffer()
        MQTTPacketCodec.encode(packet, into: &buffer)
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    @Test func connectCarriesCredentialsKeepAliveAndWill() {
        let packet = MQTTPacket.connect(.init(clientID: "c", keepAliveSeconds: 30, username: "u", password: "p",
                                              will: MQTTWill(topic: "t", string: "offline")))
        let expected: [UInt8] = [0x10, 31, 0, 4] + Array("MQTT".utf8) + [4, 0b1110_1110, 0, 30, 0, 1, 0x63,
                                 0, 1, 0x74, 0, 7] + Array("offline".utf8) + [0, 1, 0x75, 0, 1, 0x70]
        #expect(bytes(packet) == expected)
    }

    @Test func publishQoS1RetainedWithPacketID() {
        let packet = MQTTPacket.publish(.init(message: MQTTMessage(topic: "a/b", string: "72", qos: .atLeastOnce, retain: true),
                                              packetID: 7, duplicate: true))
        #expect(bytes(packet) == [0x3b, 9, 0, 3, 0x61, 0x2f, 0x62, 0, 7, 0x37, 0x32])
    }

    @Test func remainingLengthUsesSevenBitGroups() throws {
        let payload = [UInt8](repeating: 1, count: 200)
        let encoded = bytes(.publish(.init(message: MQTTMessage(topic: "t", payload: payload))))
        #expect(Array(encoded.prefix(3)) == [0x30, 0xcb, 0x01])  // 203 = 0x4b + 1 × 128
        var buffer = ByteBuffer(bytes: encoded)
        let decoded = try MQTTPacketCodec.decode(from: &buffer, maxPacketSize: 1000)
        #expect(decoded == .publish(.init(message: MQTTMessage(topic: "t", payload: payload))))
    }

    @Test func decodesBrokerPacketsAndWaitsForTheRest() throws {
        var buffer = ByteBuffer(bytes: [0x20, 2, 0, 4, 0x40, 2, 0, 9, 0xd0])
        #expect(try MQTTPacketCodec.decode(from: &buffer, maxPacketSize: 100)
            == .connack(sessionPresent: false, returnCode: .badUserNameOrPassword))
        #expect(try MQTTPacketCodec.decode(from: &buffer, maxPacketSize: 100) == .puback(packetID: 9))
        #expect(try MQTTPacketCodec.decode(from: &buffer, maxPacketSize: 100) == nil)  // PINGRESP's length not here yet
        #expect(buffer.readableBytes == 1)
        buffer.writeInteger(UInt8(0))
        #expect(try MQTTPacketCodec.decode(from: &buffer, maxPacketSize: 100) == .pingresp)
    }

    @Test func anOversizedPacketIsRefusedFromItsLengthAlone() {
        var buffer = ByteBuffer(bytes: [0x30, 0xff, 0xff, 0x7f])  // 2 MiB announced, nothing of it sent
        #expect { try MQTTPacketCodec.decode(from: &buffer, maxPacketSize: 1024) } throws: {
            ($0 as? MQTTError)?.code == .packetTooLarge
        }
    }

    @Test(arguments: [
        [UInt8]([0x00, 0x00]),                    // packet type 0
        [0x20, 3, 0, 0, 0],                       // CONNACK too long
        [0x20, 2, 0, 9],                          // return code 9
        [0x30, 0xff, 0xff, 0xff, 0xff, 0x01],     // a fifth length byte
        [0x10, 0],                                // CONNECT from a broker
        [0x34, 4, 0, 1, 0x74, 0],                 // QoS 2
        [0x30, 3, 0, 2, 0xff],                    // topic cut short
    ])
    func garbageIsAProtocolViolation(bytes: [UInt8]) {
        var buffer = ByteBuffer(bytes: bytes)
        #expect { try MQTTPacketCodec.decode(from: &buffer, maxPacketSize: 1 << 20) } throws: {
            ($0 as? MQTTError)?.code == .protocolViolation
        }
    }

    @Test func topicFiltersAndLevels() {
        #expect(MQTTTopic.matches(filter: "homeassistant/status", topic: "homeassistant/status"))
        #expect(MQTTTopic.matches(filter: "heartd/+/bpm", topic: "heartd/aa/bpm"))
        #expect(MQTTTopic.matches(filter: "heartd/#", topic: "heartd/aa/bpm"))
        #expect(!MQTTTopic.matches(filter: "heartd/+", topic: "heartd/aa/bpm"))
        #expect(MQTTTopic.level("a/b+c#d e\u{1}") == "a_b_c_d_e_")
    }
}

@Suite struct MQTTOutboxTests {
    @Test func stateTopicsKeepTheLatestValueEventsKeepEach() {
        var outbox = MQTTOutbox(capacity: 100, maxInFlight: 10)
        outbox.enqueue(MQTTMessage(topic: "bpm", string: "60"), queuing: .latestPerTopic)
        outbox.enqueue(MQTTMessage(topic: "beats", string: "1"), queuing: .every)
        outbox.enqueue(MQTTMessage(topic: "bpm", string: "61"), queuing: .latestPerTopic)
        outbox.enqueue(MQTTMessage(topic: "beats", string: "2"), queuing: .every)
        var sent: [String] = []
        while case let .publish(p)? = outbox.nextPacket() { sent.append("\(p.message.topic)=\(p.message.string)") }
        #expect(sent == ["bpm=61", "beats=1", "beats=2"])
    }

    @Test func aFullQueueDropsTheOldest() {
        var outbox = MQTTOutbox(capacity: 3, maxInFlight: 10)
        for i in 1...5 { outbox.enqueue(MQTTMessage(topic: "e", string: "\(i)"), queuing: .every) }
        #expect(outbox.dropped == 2)
        var sent: [String] = []
        while case let .publish(p)? = outbox.nextPacket() { sent.append(p.message.string) }
        #expect(sent == ["3", "4", "5"])
    }

    @Test func qos1StaysInFlightUntilAcknowledgedAndGoesAgainAfterAReconnect() {
        var outbox = MQTTOutbox(capacity: 100, maxInFlight: 2)
        for i in 1...3 { outbox.enqueue(MQTTMessage(topic: "e", string: "\(i)", qos: .atLeastOnce), queuing: .every) }
        guard case let .publish(first)? = outbox.nextPacket(), case let .publish(second)? = outbox.nextPacket() else {
            Issue.record("two publishes expected")
            return
        }
        #expect(outbox.nextPacket() == nil)  // two in flight: the window is full
        let acknowledged = outbox.acknowledge(first.packetID!)
        let again = outbox.acknowledge(first.packetID!)
        #expect(acknowledged && !again)
        outbox.connectionRestarted()
        guard case let .publish(resent)? = outbox.nextPacket() else {
            Issue.record("a resend expected")
            return
        }
        #expect(resent.duplicate && resent.packetID == second.packetID && resent.message.string == "2")
        guard case let .publish(third)? = outbox.nextPacket() else {
            Issue.record("the third message expected")
            return
        }
        #expect(third.message.string == "3" && !third.duplicate && third.packetID != second.packetID)
    }
}
