/// A coarse class from the GAP Appearance value (Assigned Numbers, "Appearance Values").
public enum AppearanceClass: String, Sendable, Hashable, Codable {
    case heartRateSensor      // 0x0340
    case heartRateBelt        // 0x0341
    case watch                // 0x00C0–0x00C7
    case humanInterfaceDevice // 0x03C0–0x03C7 (keyboard, mouse, gamepad, …)
    case gamepad              // 0x03C4
    case cyclingSensor        // 0x0480–0x0487
    case runningSensor        // 0x0440–0x0447
    case pulseOximeter        // 0x0C40–0x0C47
    case unknown

    public init(appearance: UInt16) {
        switch appearance {
        case 0x0340: self = .heartRateSensor
        case 0x0341: self = .heartRateBelt
        case 0x03C4: self = .gamepad
        case 0x03C0...0x03C7: self = .humanInterfaceDevice
        case 0x00C0...0x00C7: self = .watch
        case 0x0480...0x0487: self = .cyclingSensor
        case 0x0440...0x0447: self = .runningSensor
        case 0x0C40...0x0C47: self = .pulseOximeter
        default: self = .unknown
        }
    }
}
