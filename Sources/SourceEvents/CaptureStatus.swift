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
    /// The adapter answered Connect with its connection limit; waiting for a slot (or moved to another adapter).
    case adapterFull = "adapter-full"
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
    /// The allowed adapters BlueZ has: connections and limit of each.
    public var adapters: [AdapterCaptureStatus]

    public init(bluezAvailable: Bool, bluetoothdRestarts: Int, mirrorRepairs: Int, connectedInferred: Int,
                devices: [DeviceCaptureStatus], adapters: [AdapterCaptureStatus] = []) {
        self.bluezAvailable = bluezAvailable
        self.bluetoothdRestarts = bluetoothdRestarts
        self.mirrorRepairs = mirrorRepairs
        self.connectedInferred = connectedInferred
        self.devices = devices
        self.adapters = adapters
    }
}

/// One adapter in a status snapshot: how many devices capture gives it, how many are connected, and its limit.
public struct AdapterCaptureStatus: Sendable, Codable, Hashable {
    /// `hci0`.
    public var name: String
    public var powered: Bool
    /// Wanted devices assigned to this adapter (a running capture session each).
    public var assigned: Int
    /// Devices BlueZ reports connected through it (other clients' links count: they take controller slots too).
    public var connected: Int
    /// Most devices capture gives it: `bluetooth.adapter_connection_limit`, or what the controller's first
    /// connection-limit answer showed, whichever is lower.
    public var limit: Int
    /// Whether `limit` was learned from a connection-limit answer.
    public var limitLearned: Bool

    public init(name: String, powered: Bool, assigned: Int, connected: Int, limit: Int, limitLearned: Bool = false) {
        self.name = name
        self.powered = powered
        self.assigned = assigned
        self.connected = connected
        self.limit = limit
        self.limitLearned = limitLearned
    }
}
