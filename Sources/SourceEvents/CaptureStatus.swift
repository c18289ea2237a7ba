/// What a capture source reports about itself in `status`: per-device link state and fault counters. The types
/// live beside the events so that the daemon (which fills them) and heartctl (which shows them) share them without
/// heartctl linking the BlueZ client.

/// How heart-rate notifications are received from BlueZ (`bluetooth.subscribe` in the configuration).
public enum SubscribeMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// `StartNotify` + `PropertiesChanged(Value)` signals on D-Bus (works beside other BlueZ clients).
    case startNotify = "start-notify"
    /// `AcquireNotify`: BlueZ hands over a socket, one datagram per notification, no D-Bus per value; capture falls
    /// back to StartNotify when another client holds the characteristic or the call fails.
    case acquireNotify = "acquire-notify"
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
    public var subscribeMode: SubscribeMode?
    public var notifications: Int
    /// Values dropped: wrong D-Bus type, empty, or from a characteristic that vanished.
    public var malformed: Int
    public var reconnects: Int
    public var silentStopRecoveries: Int
    public var lastNotificationMonotonic: Double?
    public var batteryPercent: Int?
    public var lastError: String?

    public init(address: String, adapter: String, state: DeviceCaptureState = .waiting, subscribeMode: SubscribeMode? = nil,
                notifications: Int = 0, malformed: Int = 0, reconnects: Int = 0, silentStopRecoveries: Int = 0,
                lastNotificationMonotonic: Double? = nil, batteryPercent: Int? = nil, lastError: String? = nil) {
        self.address = address
        self.adapter = adapter
        self.state = state
        self.subscribeMode = subscribeMode
        self.notifications = notifications
        self.malformed = malformed
        self.reconnects = reconnects
        self.silentStopRecoveries = silentStopRecoveries
        self.lastNotificationMonotonic = lastNotificationMonotonic
        self.batteryPercent = batteryPercent
        self.lastError = lastError
    }
}

/// A snapshot of the whole BlueZ capture client (`status.capture` when the daemon captures from BlueZ).
public struct CaptureStatus: Sendable, Codable, Hashable {
    public var bluezAvailable: Bool
    public var bluetoothdRestarts: Int
    /// Reloads of the mirror (GetManagedObjects while a session waits) that found changes no signal had brought.
    public var mirrorRepairs: Int
    /// Devices taken as connected because ServicesResolved=true came without a Connected=true signal.
    public var connectedInferred: Int
    public var devices: [DeviceCaptureStatus]

    public init(bluezAvailable: Bool, bluetoothdRestarts: Int, mirrorRepairs: Int, connectedInferred: Int,
                devices: [DeviceCaptureStatus]) {
        self.bluezAvailable = bluezAvailable
        self.bluetoothdRestarts = bluetoothdRestarts
        self.mirrorRepairs = mirrorRepairs
        self.connectedInferred = connectedInferred
        self.devices = devices
    }
}
