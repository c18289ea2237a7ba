/// Body Sensor Location (0x2A38): where the heart rate sensor sits. Values match HealthKit's
/// `HKHeartRateSensorLocation` (0 other … 6 foot); 7–255 are reserved and kept as read.
public enum BodySensorLocation: Sendable, Hashable, Codable, RawRepresentable, CustomStringConvertible {
    case other
    case chest
    case wrist
    case finger
    case hand
    case earLobe
    case foot
    case reserved(UInt8)

    public init(rawValue: UInt8) {
        self = switch rawValue {
        case 0: .other
        case 1: .chest
        case 2: .wrist
        case 3: .finger
        case 4: .hand
        case 5: .earLobe
        case 6: .foot
        default: .reserved(rawValue)
        }
    }

    public var rawValue: UInt8 {
        switch self {
        case .other: 0
        case .chest: 1
        case .wrist: 2
        case .finger: 3
        case .hand: 4
        case .earLobe: 5
        case .foot: 6
        case .reserved(let v): v
        }
    }

    /// Decodes a 0x2A38 value: one byte. Bytes after the first are ignored (like the 0x2A37 decoder).
    public init(decoding bytes: some Collection<UInt8>) throws(DecodeError) {
        guard let first = bytes.first else { throw DecodeError(.empty, "body sensor location is empty") }
        self.init(rawValue: first)
    }

    /// A human-readable name, e.g. "Chest", "Ear lobe", "Reserved (0x07)".
    public var displayName: String {
        switch self {
        case .other: "Other"
        case .chest: "Chest"
        case .wrist: "Wrist"
        case .finger: "Finger"
        case .hand: "Hand"
        case .earLobe: "Ear lobe"
        case .foot: "Foot"
        case .reserved(let v): "Reserved (0x\(hex(v)))"
        }
    }

    public var description: String { displayName }
}
