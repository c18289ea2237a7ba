import Foundation
import LiveFeed

/// A sensor as the browser gets it: the live device plus its HRmax, % HRmax and zone.
public struct DeviceView: Codable, Sendable, Hashable {
    public var address: String
    public var name: String
    public var state: LiveDeviceState
    public var connected: Bool
    public var bpm: Int?
    public var contact: Bool?
    public var battery: Int?
    public var rmssdMs: Double?
    /// Live DFA α1 (two decimals); nil while heartd withholds it.
    public var dfaAlpha1: Double?
    /// Milliseconds since 1970 of the latest notification.
    public var lastNotification: Int64?
    public var hrmax: Int
    public var hrmaxSource: HRMaxSource
    public var hrmaxPercent: Int?
    public var zone: HeartZone?
    /// Time in zone, effort points and calories since the session started (since heartd-web started without one).
    public var effort: EffortView?

    public init(_ device: LiveDevice, hrmax table: HRMaxTable, effort tally: EffortTally? = nil) {
        effort = tally.map(EffortView.init)
        address = device.address
        name = device.displayName
        state = device.state
        connected = device.connected
        bpm = device.bpm
        contact = device.contact
        battery = device.batteryPercent
        rmssdMs = device.rmssdMs.map { ($0 * 10).rounded() / 10 }
        dfaAlpha1 = device.dfaAlpha1.map { ($0 * 100).rounded() / 100 }
        lastNotification = device.lastNotification.map(WebJSON.milliseconds)
        let (bpmMax, source) = device.personHeartRateMaximum.map { (bpm: $0, source: HRMaxSource.person) } ?? table.hrmax(for: device.address)
        hrmax = bpmMax
        hrmaxSource = source
        if let bpm = device.bpm, device.state == .streaming {
            // The zone of the whole percentage shown, so that a tile's colour and its number always agree.
            let percent = (Double(bpm) * 100 / Double(bpmMax)).rounded()
            hrmaxPercent = Int(percent)
            zone = HeartZone(percent: percent)
        }
    }
}
