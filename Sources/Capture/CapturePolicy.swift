import BlueZ
import DBus
import HeartRate
import SourceEvents

/// What the BlueZ client captures and how it behaves on faults.
public struct CapturePolicy: Sendable, Hashable {
    /// Adapter names (`hci0`) to use; empty = every powered adapter. A device is only handled under its own adapter.
    public var adapters: Set<String>
    /// Device addresses to capture (upper-case `AA:BB:…`).
    public var allowList: Set<String>
    /// Also capture any device advertising the Heart Rate service (0x180D).
    public var autoHeartRate: Bool
    /// AcquireNotify (StartNotify for a connection whose AcquireNotify BlueZ refuses), or StartNotify only.
    public var subscribeMode: SubscribeMode
    /// Connected but no notification for this long: re-subscribe once, then reconnect. Seconds.
    public var silentStopTimeout: Double
    /// Reconnect backoff: first delay, cap, factor, ± jitter fraction.
    public var backoffInitial: Double
    public var backoffMaximum: Double
    public var backoffFactor: Double
    public var backoffJitter: Double
    /// Timeouts for Connect and for ServicesResolved after it. Seconds.
    public var connectTimeout: Double
    public var resolveTimeout: Double
    /// Discover (SetDiscoveryFilter + StartDiscovery) while a wanted device is missing.
    public var discovery: Bool
    /// Disconnect the devices we connected when capture stops.
    public var disconnectOnStop: Bool
    /// How AcquireNotify readers batch reads on a busy socket (the D-Bus connection has its own setting).
    public var readBatching: ReadBatching
    /// Address (upper case) → adapter name: the device is captured through that adapter only.
    public var pins: [String: String] = [:]
    /// Most devices given to one adapter (lowered per adapter by its first connection-limit answer).
    public var adapterConnectionLimit: Int = 5
    /// After an adapter answers a device's Connect with its connection limit, the device avoids it this long
    /// (when another adapter sees it) and waits at least this long before trying it again. Seconds.
    public var connectionLimitBackoff: Double = 30
    /// An allowed adapter present but not powered this long gets one journal line (and `status` shows it from the
    /// start): bluetoothd powers the adapters it finds within a second (AutoEnable). Seconds.
    public var adapterOffNotice: Double = 10

    public init(adapters: Set<String> = [], allowList: Set<String> = [], autoHeartRate: Bool = false,
                subscribeMode: SubscribeMode = .acquireNotify, silentStopTimeout: Double = 10,
                backoffInitial: Double = 1, backoffMaximum: Double = 60, backoffFactor: Double = 2,
                backoffJitter: Double = 0.2, connectTimeout: Double = 30, resolveTimeout: Double = 10,
                discovery: Bool = true, disconnectOnStop: Bool = true, readBatching: ReadBatching = .off) {
        self.adapters = adapters
        self.allowList = Set(allowList.map { $0.uppercased() })
        self.autoHeartRate = autoHeartRate
        self.subscribeMode = subscribeMode
        self.silentStopTimeout = silentStopTimeout
        self.backoffInitial = backoffInitial
        self.backoffMaximum = backoffMaximum
        self.backoffFactor = backoffFactor
        self.backoffJitter = backoffJitter
        self.connectTimeout = connectTimeout
        self.resolveTimeout = resolveTimeout
        self.discovery = discovery
        self.disconnectOnStop = disconnectOnStop
        self.readBatching = readBatching
    }

    func allows(adapterPath: String) -> Bool {
        adapters.isEmpty || adapters.contains(adapterPath.lastPathComponent)
    }

    /// The allow-list in BlueZ's spelling (upper case), whatever the caller wrote.
    var normalizedAllowList: Set<String> { Set(allowList.map { $0.uppercased() }) }

    /// Whether a device (by mirror properties) is one we capture.
    func wants(address: String, uuids: [String]) -> Bool {
        if normalizedAllowList.contains(address.uppercased()) { return true }
        return autoHeartRate && uuids.contains { $0.lowercased() == GATTUUID.heartRateService.uuidString }
    }
}
