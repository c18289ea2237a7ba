import Foundation
import HealthModel

/// What the BlueZ client reports to the daemon, in order per device.
public enum CaptureEvent: Sendable {
    /// Connected, services resolved, info read, subscribed. `device.localIdentifier` is the address;
    /// metadata has serial number, body sensor location, appearance class and adapter when known.
    case connected(address: String, adapter: String, device: DeviceInfo, at: Date, monotonic: Double)
    /// One Heart Rate Measurement value, as received.
    case notification(address: String, bytes: [UInt8], at: Date, monotonic: Double)
    /// The link (or our subscription) ended; a reconnect follows unless capture stops.
    case disconnected(address: String, reason: String, at: Date, monotonic: Double)
    /// Battery Level (0x2A19) read at connect or notified.
    case battery(address: String, percent: Int)
}

/// Per-device state in a status snapshot.
public enum DeviceCaptureState: String, Sendable, Codable, Hashable {
    case waiting, connecting, resolving, subscribing, streaming, recovering, backoff, stopped
}

/// Counters and state of one device.
public struct DeviceCaptureStatus: Sendable, Codable, Hashable {
    public var address: String
    public var adapter: String
    public var state: DeviceCaptureState
    public var subscribeMode: CapturePolicy.SubscribeMode?
    public var notifications: Int
    /// Values dropped: wrong D-Bus type, empty, or from a characteristic that vanished.
    public var malformed: Int
    public var reconnects: Int
    public var silentStopRecoveries: Int
    public var lastNotificationMonotonic: Double?
    public var batteryPercent: Int?
    public var lastError: String?
}

/// A snapshot of the whole client.
public struct CaptureStatus: Sendable, Codable, Hashable {
    public var bluezAvailable: Bool
    public var bluetoothdRestarts: Int
    /// Reloads of the mirror (GetManagedObjects while a session waits) that found changes no signal had brought.
    public var mirrorRepairs: Int
    /// Devices taken as connected because ServicesResolved=true came without a Connected=true signal.
    public var connectedInferred: Int
    public var devices: [DeviceCaptureStatus]
}
