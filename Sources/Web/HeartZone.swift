/// A heart-rate zone by % of HRmax, as gym displays colour them: grey from 50 %, blue from 60 %, green from 70 %,
/// yellow from 80 %, red from 90 %; below 50 % `rest` (no colour).
public enum HeartZone: String, Codable, Sendable, CaseIterable {
    case rest, grey, blue, green, yellow, red

    public init(percent: Double) {
        switch percent {
        case 90...: self = .red
        case 80..<90: self = .yellow
        case 70..<80: self = .green
        case 60..<70: self = .blue
        case 50..<60: self = .grey
        default: self = .rest
        }
    }
}

/// HRmax per device (`web.hrmax_devices`) or the default (`web.hrmax`).
public struct HRMaxTable: Sendable, Hashable {
    public var defaultBPM: Int
    public var byDevice: [String: Int]

    public init(defaultBPM: Int, byDevice: [String: Int] = [:]) {
        self.defaultBPM = defaultBPM
        self.byDevice = byDevice
    }

    public func hrmax(for address: String) -> (bpm: Int, source: HRMaxSource) {
        if let bpm = byDevice[address.uppercased()] { return (bpm, .device) }
        return (defaultBPM, .default)
    }
}

/// Where a device's HRmax came from.
public enum HRMaxSource: String, Codable, Sendable {
    /// The person wearing the strap (their own HRmax, or estimated from their age).
    case person
    /// `web.hrmax_devices`.
    case device
    /// `web.hrmax`.
    case `default`
}
