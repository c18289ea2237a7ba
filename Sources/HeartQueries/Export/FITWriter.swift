import Foundation

/// A minimal writer of Garmin FIT files (the FIT SDK's protocol 2.0, little-endian): definition messages, data
/// messages of fixed-size fields, the 14-byte header with the data size, and the CRC-16 of the header and of the
/// file. Field values are given as unsigned integers; a field's size and base type come from its definition.
struct FITWriter {
    /// A field of a definition: its number in the global message, size in bytes and FIT base type.
    struct Field {
        let number: UInt8
        let size: UInt8
        let baseType: UInt8

        static func enumeration(_ n: UInt8) -> Field { Field(number: n, size: 1, baseType: 0x00) }
        static func uint8(_ n: UInt8) -> Field { Field(number: n, size: 1, baseType: 0x02) }
        static func uint16(_ n: UInt8) -> Field { Field(number: n, size: 2, baseType: 0x84) }
        static func uint32(_ n: UInt8) -> Field { Field(number: n, size: 4, baseType: 0x86) }
        static func uint32z(_ n: UInt8) -> Field { Field(number: n, size: 4, baseType: 0x8C) }
        /// An array of `count` uint16 values (the `hrv` message's `time`).
        static func uint16Array(_ n: UInt8, count: UInt8) -> Field { Field(number: n, size: 2 * count, baseType: 0x84) }
    }

    /// The profile version written in the header (21.40).
    static let profileVersion: UInt16 = 2140
    /// Seconds from the Unix epoch to the FIT epoch, 1989-12-31T00:00:00Z.
    static let epochOffset: TimeInterval = 631_065_600

    private(set) var data: [UInt8] = []
    private var defined: [UInt8: [Field]] = [:]

    /// FIT `date_time`: whole seconds since the FIT epoch.
    static func timestamp(_ date: Date) -> UInt32 {
        UInt32(clamping: Int64((date.timeIntervalSince1970 - epochOffset).rounded(.down)))
    }

    /// Writes a definition message for `local` (0…15) unless the same one is in force.
    mutating func define(local: UInt8, global: UInt16, fields: [Field]) {
        if let current = defined[local], current.map(\.number) == fields.map(\.number),
           current.map(\.size) == fields.map(\.size) { return }
        defined[local] = fields
        data += [0x40 | local, 0, 0]
        append(UInt64(global), size: 2)
        data.append(UInt8(fields.count))
        for f in fields { data += [f.number, f.size, f.baseType] }
    }

    /// Writes a data message of `local` with one value per field (arrays: one per element, in order).
    mutating func record(local: UInt8, _ values: [UInt64]) {
        guard let fields = defined[local] else { preconditionFailure("FIT local message \(local) not defined") }
        data.append(local)
        var i = 0
        for f in fields {
            let element = f.baseType == 0x84 ? 2 : Int(f.size)
            for _ in 0 ..< Int(f.size) / element {
                append(values[i], size: element)
                i += 1
            }
        }
    }

    private mutating func append(_ value: UInt64, size: Int) {
        for k in 0 ..< size { data.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(k)))) }
    }

    /// The whole file: header, records, CRC.
    func file() -> [UInt8] {
        var header: [UInt8] = [14, 0x20]
        header += [UInt8(Self.profileVersion & 0xFF), UInt8(Self.profileVersion >> 8)]
        let size = UInt32(data.count)
        header += (0 ..< 4).map { UInt8(truncatingIfNeeded: size >> (8 * UInt32($0))) }
        header += Array(".FIT".utf8)
        let headerCRC = Self.crc(header)
        header += [UInt8(headerCRC & 0xFF), UInt8(headerCRC >> 8)]
        var out = header + data
        let crc = Self.crc(out)
        out += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        return out
    }

    /// The FIT SDK's CRC-16 (`FitCRC_Get16`).
    static func crc(_ bytes: [UInt8]) -> UInt16 {
        let table: [UInt16] = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
                               0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
        var crc: UInt16 = 0
        for byte in bytes {
            var tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int(byte & 0xF)]
            tmp = table[Int(crc & 0xF)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[Int((byte >> 4) & 0xF)]
        }
        return crc
    }
}
