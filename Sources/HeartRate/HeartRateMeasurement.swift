/// Sensor contact as the Heart Rate Measurement flags (bits 1–2) report it.
public enum SensorContact: String, Sendable, Hashable, Codable {
    /// Bits 1–2 = 0b00 or 0b01: the sensor does not report contact.
    case notSupported = "not_supported"
    /// 0b10: supported, but the sensor is not touching skin (values are not trustworthy).
    case notDetected = "not_detected"
    /// 0b11: supported and detected.
    case detected
}

/// A decoded GATT Heart Rate Measurement (0x2A37) notification.
public struct HeartRateMeasurement: Sendable, Hashable {
    /// Beats per minute.
    public var bpm: UInt16
    public var contact: SensorContact
    /// Energy expended in kJ, cumulative since the sensor's last reset (saturates at 0xFFFF); nil if absent.
    public var energyKilojoules: UInt16?
    /// RR intervals in 1/1024 s, oldest first.
    public var rrIntervals: [UInt16]
    /// Whether the value was sent as uint16 (flags bit 0).
    public var isUInt16: Bool

    public init(bpm: UInt16, contact: SensorContact = .notSupported, energyKilojoules: UInt16? = nil,
                rrIntervals: [UInt16] = [], isUInt16: Bool = false) {
        self.bpm = bpm
        self.contact = contact
        self.energyKilojoules = energyKilojoules
        self.rrIntervals = rrIntervals
        self.isUInt16 = isUInt16 || bpm > 0xFF
    }
}

/// Why a payload could not be decoded.
public struct DecodeError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case empty
        case truncated
        case oddRRBytes = "odd-rr-bytes"
        case invalidValue = "invalid-value"
    }
    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}

extension HeartRateMeasurement {
    /// Decodes a 0x2A37 payload held in an array (the hot path: notifications arrive as `[UInt8]`). A concrete
    /// overload, because the generic one is not specialised across modules (measured 8× slower).
    public init(decoding bytes: [UInt8]) throws(DecodeError) {
        try self.init(decodingCollection: bytes)
    }

    /// Decodes a 0x2A37 payload exactly per the Heart Rate Service spec: little-endian; flags bit0 uint16 value,
    /// bits1–2 contact, bit3 energy present, bit4 RR present (all remaining bytes, 2 each). Bits 5–7 are reserved
    /// and ignored. Payloads may be longer than 20 bytes. Never traps.
    public init(decoding bytes: some Collection<UInt8>) throws(DecodeError) {
        try self.init(decodingCollection: bytes)
    }

    private init(decodingCollection bytes: some Collection<UInt8>) throws(DecodeError) {
        var reader = ByteReader(bytes)
        guard let flags = reader.u8() else { throw DecodeError(.empty, "payload is empty") }
        let wide = flags & 0x01 != 0
        let contactBits = (flags >> 1) & 0x03
        let hasEnergy = flags & 0x08 != 0
        let hasRR = flags & 0x10 != 0
        let bpm: UInt16
        if wide {
            guard let v = reader.u16() else { throw DecodeError(.truncated, "flags 0x\(hex(flags)) need a uint16 heart rate, \(bytes.count) byte(s) given") }
            bpm = v
        } else {
            guard let v = reader.u8() else { throw DecodeError(.truncated, "flags 0x\(hex(flags)) need a uint8 heart rate, \(bytes.count) byte(s) given") }
            bpm = UInt16(v)
        }
        var energy: UInt16?
        if hasEnergy {
            guard let e = reader.u16() else { throw DecodeError(.truncated, "flags 0x\(hex(flags)) announce energy expended, payload ends first") }
            energy = e
        }
        var rr: [UInt16] = []
        if hasRR {
            guard reader.remaining % 2 == 0 else {
                throw DecodeError(.oddRRBytes, "RR intervals take 2 bytes each, \(reader.remaining) byte(s) left")
            }
            rr.reserveCapacity(reader.remaining / 2)
            while let v = reader.u16() { rr.append(v) }
        }
        // Bytes after the announced fields (no RR flag) are ignored: the spec reserves them, and dropping the
        // whole measurement over padding would lose a valid heart rate.
        let contact: SensorContact = switch contactBits {
        case 2: .notDetected
        case 3: .detected
        default: .notSupported
        }
        self.init(bpm: bpm, contact: contact, energyKilojoules: energy, rrIntervals: rr, isUInt16: wide)
    }

    /// Encodes the measurement as a sensor would send it (used by the simulator and tests).
    public func encoded() -> [UInt8] {
        var flags: UInt8 = isUInt16 ? 0x01 : 0
        switch contact {
        case .notSupported: break
        case .notDetected: flags |= 0x04
        case .detected: flags |= 0x06
        }
        if energyKilojoules != nil { flags |= 0x08 }
        if !rrIntervals.isEmpty { flags |= 0x10 }
        var out: [UInt8] = [flags]
        out.reserveCapacity(5 + 2 * rrIntervals.count)
        if isUInt16 { out += [UInt8(bpm & 0xFF), UInt8(bpm >> 8)] } else { out.append(UInt8(truncatingIfNeeded: bpm)) }
        if let e = energyKilojoules { out += [UInt8(e & 0xFF), UInt8(e >> 8)] }
        for v in rrIntervals { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        return out
    }
}

func hex(_ b: UInt8) -> String {
    let s = String(b, radix: 16)
    return s.count == 1 ? "0" + s : s
}

/// Little-endian cursor over bytes that returns nil instead of trapping at the end.
struct ByteReader<C: Collection<UInt8>> {
    private let bytes: C
    private var index: C.Index

    init(_ bytes: C) {
        self.bytes = bytes
        self.index = bytes.startIndex
    }

    var remaining: Int { bytes.distance(from: index, to: bytes.endIndex) }

    mutating func u8() -> UInt8? {
        guard index != bytes.endIndex else { return nil }
        defer { index = bytes.index(after: index) }
        return bytes[index]
    }

    mutating func u16() -> UInt16? {
        guard remaining >= 2, let lo = u8(), let hi = u8() else { return nil }
        return UInt16(lo) | UInt16(hi) << 8
    }
}
