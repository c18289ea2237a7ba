import NIOCore

/// MQTT 3.1.1's wire format (OASIS standard, chapters 2 and 3): a fixed header (type and flags, the remaining
/// length as 1–4 bytes of 7 bits), a variable header and a payload. Strings are a 16-bit length and UTF-8.
public enum MQTTPacketCodec {
    /// The largest remaining length the format can express (four length bytes).
    public static let maxRemainingLength = 268_435_455

    // MARK: Encoding

    public static func encode(_ packet: MQTTPacket, into out: inout ByteBuffer) {
        var body = ByteBuffer()
        var flags: UInt8 = 0
        switch packet {
        case let .connect(c):
            writeString("MQTT", into: &body)
            body.writeInteger(UInt8(4))  // protocol level 3.1.1
            var connectFlags: UInt8 = c.cleanSession ? 0x02 : 0
            if let will = c.will {
                connectFlags |= 0x04 | (will.message.qos.rawValue << 3) | (will.message.retain ? 0x20 : 0)
            }
            if c.password != nil { connectFlags |= 0x40 }
            if c.username != nil { connectFlags |= 0x80 }
            body.writeInteger(connectFlags)
            body.writeInteger(c.keepAliveSeconds)
            writeString(c.clientID, into: &body)
            if let will = c.will {
                writeString(will.message.topic, into: &body)
                body.writeInteger(UInt16(will.message.payload.count))
                body.writeBytes(will.message.payload)
            }
            if let username = c.username { writeString(username, into: &body) }
            if let password = c.password { writeString(password, into: &body) }
        case let .connack(sessionPresent, returnCode):
            body.writeInteger(UInt8(sessionPresent ? 1 : 0))
            body.writeInteger(returnCode.rawValue)
        case let .publish(p):
            flags = (p.duplicate ? 0x08 : 0) | (p.message.qos.rawValue << 1) | (p.message.retain ? 0x01 : 0)
            writeString(p.message.topic, into: &body)
            if p.message.qos != .atMostOnce { body.writeInteger(p.packetID ?? 0) }
            body.writeBytes(p.message.payload)
        case let .puback(packetID):
            body.writeInteger(packetID)
        case let .subscribe(packetID, filters):
            flags = 0x02
            body.writeInteger(packetID)
            for subscription in filters {
                writeString(subscription.filter, into: &body)
                body.writeInteger(subscription.qos.rawValue)
            }
        case let .suback(packetID, results):
            body.writeInteger(packetID)
            body.writeBytes(results)
        case .pingreq, .pingresp, .disconnect:
            break
        }
        out.writeInteger(packet.kind.rawValue << 4 | flags)
        var length = body.readableBytes
        repeat {
            var byte = UInt8(length % 128)
            length /= 128
            if length > 0 { byte |= 0x80 }
            out.writeInteger(byte)
        } while length > 0
        out.writeBuffer(&body)
    }

    private static func writeString(_ text: String, into buffer: inout ByteBuffer) {
        let bytes = Array(text.utf8.prefix(Int(UInt16.max)))
        buffer.writeInteger(UInt16(bytes.count))
        buffer.writeBytes(bytes)
    }

    // MARK: Decoding

    /// One packet from the front of `buffer`, or nil (nothing consumed) when it is not complete yet. Throws
    /// `.packetTooLarge` as soon as the length says so (before the body arrives) and `.protocolViolation` for bytes
    /// that are not a packet a broker sends.
    public static func decode(from buffer: inout ByteBuffer, maxPacketSize: Int) throws(MQTTError) -> MQTTPacket? {
        var peek = buffer
        guard let first = peek.readInteger(as: UInt8.self) else { return nil }
        var length = 0
        var multiplier = 1
        var lengthBytes = 0
        while true {
            guard let byte = peek.readInteger(as: UInt8.self) else { return nil }
            lengthBytes += 1
            length += Int(byte & 0x7f) * multiplier
            if byte & 0x80 == 0 { break }
            guard lengthBytes < 4 else { throw MQTTError(.protocolViolation, "a remaining length longer than 4 bytes") }
            multiplier *= 128
        }
        guard 1 + lengthBytes + length <= maxPacketSize else {
            throw MQTTError(.packetTooLarge, "a packet of \(1 + lengthBytes + length) bytes (at most \(maxPacketSize))")
        }
        guard var body = peek.readSlice(length: length) else { return nil }
        buffer = peek
        let flags = first & 0x0f
        guard let kind = MQTTPacket.Kind(rawValue: first >> 4) else {
            throw MQTTError(.protocolViolation, "packet type \(first >> 4) does not exist")
        }
        let packet = try decodeBody(kind: kind, flags: flags, body: &body)
        guard body.readableBytes == 0 else {
            throw MQTTError(.protocolViolation, "\(body.readableBytes) bytes left over in a \(kind) packet")
        }
        return packet
    }

    private static func decodeBody(kind: MQTTPacket.Kind, flags: UInt8, body: inout ByteBuffer) throws(MQTTError) -> MQTTPacket {
        switch kind {
        case .connack:
            guard body.readableBytes == 2, let ack = body.readInteger(as: UInt8.self), let code = body.readInteger(as: UInt8.self) else {
                throw MQTTError(.protocolViolation, "a CONNACK of \(body.readableBytes) bytes")
            }
            guard ack & 0xfe == 0, let returnCode = MQTTConnectReturnCode(rawValue: code) else {
                throw MQTTError(.protocolViolation, "a CONNACK with flags \(ack) and return code \(code)")
            }
            return .connack(sessionPresent: ack == 1, returnCode: returnCode)
        case .publish:
            guard let qos = MQTTQoS(rawValue: (flags >> 1) & 0x03) else {
                throw MQTTError(.protocolViolation, "a PUBLISH with QoS \((flags >> 1) & 0x03) (QoS 2 is not subscribed)")
            }
            let topic = try readString(&body, what: "topic")
            var packetID: UInt16?
            if qos != .atMostOnce {
                guard let id = body.readInteger(as: UInt16.self) else { throw MQTTError(.protocolViolation, "a PUBLISH without packet id") }
                packetID = id
            }
            let payload = body.readBytes(length: body.readableBytes) ?? []
            return .publish(MQTTPacket.Publish(
                message: MQTTMessage(topic: topic, payload: payload, qos: qos, retain: flags & 0x01 != 0),
                packetID: packetID, duplicate: flags & 0x08 != 0))
        case .puback:
            guard body.readableBytes == 2, let id = body.readInteger(as: UInt16.self) else {
                throw MQTTError(.protocolViolation, "a PUBACK of \(body.readableBytes) bytes")
            }
            return .puback(packetID: id)
        case .suback:
            guard body.readableBytes >= 3, let id = body.readInteger(as: UInt16.self) else {
                throw MQTTError(.protocolViolation, "a SUBACK of \(body.readableBytes) bytes")
            }
            return .suback(packetID: id, results: body.readBytes(length: body.readableBytes) ?? [])
        case .pingresp, .pingreq, .disconnect:
            guard body.readableBytes == 0 else { throw MQTTError(.protocolViolation, "a \(kind) with a body") }
            return kind == .pingresp ? .pingresp : kind == .pingreq ? .pingreq : .disconnect
        case .connect, .pubrec, .pubrel, .pubcomp, .subscribe, .unsubscribe, .unsuback:
            throw MQTTError(.protocolViolation, "a \(kind) packet, which a broker does not send to this client")
        }
    }

    private static func readString(_ body: inout ByteBuffer, what: String) throws(MQTTError) -> String {
        guard let length = body.readInteger(as: UInt16.self), let bytes = body.readBytes(length: Int(length)) else {
            throw MQTTError(.protocolViolation, "a truncated \(what)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw MQTTError(.protocolViolation, "a \(what) that is not UTF-8")
        }
        return text
    }
}

/// The codec as NIO channel handlers.
struct MQTTPacketDecoder: ByteToMessageDecoder {
    typealias InboundOut = MQTTPacket
    let maxPacketSize: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let packet = try MQTTPacketCodec.decode(from: &buffer, maxPacketSize: maxPacketSize) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(packet))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        try decode(context: context, buffer: &buffer)
    }
}

struct MQTTPacketEncoder: MessageToByteEncoder {
    typealias OutboundIn = MQTTPacket

    func encode(data: MQTTPacket, out: inout ByteBuffer) {
        MQTTPacketCodec.encode(data, into: &out)
    }
}
