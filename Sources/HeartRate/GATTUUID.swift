/// A 16-bit Bluetooth SIG UUID, convertible to and from the 128-bit string form BlueZ uses on D-Bus
/// (`0000180d-0000-1000-8000-00805f9b34fb`: the 16-bit value inside the Bluetooth Base UUID).
public struct GATTUUID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The 16-bit assigned number, e.g. 0x2A37.
    public let value: UInt16

    public init(_ value: UInt16) {
        self.value = value
    }

    /// The suffix every SIG-assigned UUID shares (Bluetooth Base UUID without its first group).
    public static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// Parses `2a37`, `0x2A37`, `00002a37` or `00002a37-0000-1000-8000-00805f9b34fb` (case-insensitive,
    /// surrounding whitespace allowed). Returns nil for anything else, including 128-bit UUIDs outside the
    /// Bluetooth Base UUID and 32-bit values above 0xFFFF.
    public init?(string: String) {
        var s = Substring(string.lowercased()).drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        while let last = s.last, last == " " || last == "\t" || last == "\n" { s = s.dropLast() }
        if s.hasPrefix("0x") { s = s.dropFirst(2) }
        if s.count == 36 {
            guard s.hasSuffix(GATTUUID.baseSuffix) else { return nil }
            s = s.prefix(8)
        }
        guard s.count == 4 || s.count == 8 else { return nil }
        if s.count == 8 {
            guard s.hasPrefix("0000") else { return nil }
            s = s.dropFirst(4)
        }
        guard s.allSatisfy(\.isHexDigit), let v = UInt16(s, radix: 16) else { return nil }
        self.value = v
    }

    /// The lowercase 128-bit form BlueZ reports in `UUID` properties and `UUIDs` arrays.
    public var uuidString: String { "0000" + shortString + GATTUUID.baseSuffix }

    /// Four lowercase hex digits, e.g. `2a37`.
    public var shortString: String {
        let h = String(value, radix: 16)
        return String(repeating: "0", count: 4 - h.count) + h
    }

    public var description: String { "0x" + shortString.uppercased() }

    public static func < (lhs: GATTUUID, rhs: GATTUUID) -> Bool { lhs.value < rhs.value }

    // MARK: Services
    public static let heartRateService = GATTUUID(0x180D)
    public static let batteryService = GATTUUID(0x180F)
    public static let deviceInformationService = GATTUUID(0x180A)

    // MARK: Characteristics
    public static let heartRateMeasurement = GATTUUID(0x2A37)
    public static let bodySensorLocation = GATTUUID(0x2A38)
    public static let heartRateControlPoint = GATTUUID(0x2A39)
    public static let batteryLevel = GATTUUID(0x2A19)
    public static let manufacturerName = GATTUUID(0x2A29)
    public static let modelNumber = GATTUUID(0x2A24)
    public static let serialNumber = GATTUUID(0x2A25)
    public static let hardwareRevision = GATTUUID(0x2A27)
    public static let firmwareRevision = GATTUUID(0x2A26)
    public static let softwareRevision = GATTUUID(0x2A28)

    // MARK: Descriptors
    public static let clientCharacteristicConfiguration = GATTUUID(0x2902)
}
