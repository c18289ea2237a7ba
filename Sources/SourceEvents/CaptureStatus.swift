import Foundation

/// What a capture source reports about itself in `status`: per-device link state and fault counters. The types
/// live beside the events so that the daemon (which fills them) and heartctl (which shows them) share them without
/// heartctl linking the BlueZ client.

/// How heart-rate notifications are received from BlueZ (`bluetooth.subscribe` in the configuration).
public enum SubscribeMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// `StartNotify` + `PropertiesChanged(Value)` signals on D-Bus (works beside other BlueZ clients).
    case startNotify = "start-notify"
    /// `AcquireNotify`: BlueZ hands over a socket, one datagram per notification, no D-Bus per value (the default).
    /// When BlueZ refuses it for a connection, capture subscribes with StartNotify for that connection
    /// (`SubscribeFallbackReason`) and tries AcquireNotify again on the next one.
    case acquireNotify = "acquire-notify"
}

/// Why a connection configured for AcquireNotify subscribed with StartNotify instead: BlueZ's answer to
/// `AcquireNotify` (bluetoothd 5.66, src/gatt-client.c).
public enum SubscribeFallbackReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// `org.bluez.Error.NotPermitted` "Notify acquired": another client holds the characteristic's socket.
    case notifyAcquired = "notify-acquired"
    /// `org.bluez.Error.InProgress`: a StartNotify session (another client's, or one of ours left over) is on.
    case inProgress = "in-progress"
    /// `org.bluez.Error.NotSupported`: the characteristic cannot be acquired (e.g. it indicates, not notifies).
    case notSupported = "not-supported"
    /// `org.freedesktop.DBus.Error.UnknownMethod`: a BlueZ without AcquireNotify (older, or experimental off).
    case unknownMethod = "unknown-method"
    /// `org.bluez.Error.Failed`: "Failed to subscribe", "Not connected", a socket error in bluetoothd.
    case failed
    /// A reply without a usable socket or MTU.
    case unusableReply = "unusable-reply"
    /// No reply in time.
    case timeout
    /// Any other error.
    case other
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
    /// The subscription in use on the current connection (nil before the first).
    public var subscribeMode: SubscribeMode?
    /// Set while the current connection uses StartNotify because BlueZ refused AcquireNotify.
    public var subscribeFallback: SubscribeFallbackReason?
    /// Connections that fell back to StartNotify.
    public var subscribeFallbacks: Int
    public var notifications: Int
    /// Values dropped: wrong D-Bus type, empty, or from a characteristic that vanished.
    public var malformed: Int
    public var reconnects: Int
    public var silentStopRecoveries: Int
    public var lastNotificationMonotonic: Double?
    public var batteryPercent: Int?
    public var lastError: String?

    public init(address: String, adapter: String, state: DeviceCaptureState = .waiting, subscribeMode: SubscribeMode? = nil,
                subscribeFallback: SubscribeFallbackReason? = nil, subscribeFallbacks: Int = 0, notifications: Int = 0, malformed: Int = 0, reconnects: Int = 0, silentStopRecoveries: Int = 0,
                lastNotificationMonotonic: Double? = nil, batteryPercent: Int? = nil, lastError: String? = nil) {
        self.address = address
        self.adapter = adapter
        self.state = state
        self.subscribeMode = subscribeMode
        self.subscribeFallback = subscribeFallback
        self.subscribeFallbacks = subscribeFallbacks
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
    /// BlueZ's `PowerState` where bluetoothd exports it (5.66 only when run with `-E`; the lab's does not):
    /// `off-blocked` says rfkill.
    public var powerState: AdapterPowerState?
    /// While the adapter is present but not powered: since when heartd has seen it so (heartd waits; it never
    /// powers an adapter itself).
    public var offSince: Date?

    public init(name: String, powered: Bool, assigned: Int, connected: Int, limit: Int, limitLearned: Bool = false,
                powerState: AdapterPowerState? = nil, offSince: Date? = nil) {
        self.name = name
        self.powered = powered
        self.assigned = assigned
        self.connected = connected
        self.limit = limit
        self.limitLearned = limitLearned
        self.powerState = powerState
        self.offSince = offSince
    }
}
