import BlueZ
import HeartRate

/// A heart-rate sensor in range that capture does not take (neither allowed nor captured): what `nearby` found.
public struct NearbySensor: Sendable, Hashable {
    /// Upper case.
    public var address: String
    public var name: String?
    /// Signal strength in dBm as the scan last heard it (nil: BlueZ reported none).
    public var rssi: Int?
    /// The adapter that heard it best (`hci0`).
    public var adapter: String

    public init(address: String, name: String?, rssi: Int?, adapter: String) {
        self.address = address
        self.name = name
        self.rssi = rssi
        self.adapter = adapter
    }

    /// The sensors among `sightings` that advertise the Heart Rate service (0x180D), are heard through one of
    /// `adapters` and that `captured` does not hold, one per address (the strongest signal), strongest first.
    static func list(_ sightings: [DeviceSighting], adapters: Set<String>, captured: (DeviceSighting) -> Bool) -> [NearbySensor] {
        var best: [String: NearbySensor] = [:]
        for s in sightings where adapters.contains(s.adapterPath)
            && s.uuids.contains(GATTUUID.heartRateService.uuidString) && !captured(s) {
            let sensor = NearbySensor(address: s.address, name: s.name, rssi: s.rssi, adapter: s.adapterPath.lastPathComponent)
            if let known = best[s.address], (known.rssi ?? Int.min) >= (sensor.rssi ?? Int.min) { continue }
            best[s.address] = sensor
        }
        return best.values.sorted { ($0.rssi ?? Int.min, $1.address) > ($1.rssi ?? Int.min, $0.address) }
    }
}

/// Why a scan could not run.
public struct NearbyError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable {
        /// bluetoothd is not on the bus.
        case bluetoothdAbsent = "bluetoothd-absent"
        /// No allowed adapter is powered.
        case noAdapter = "no-adapter"
    }

    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
