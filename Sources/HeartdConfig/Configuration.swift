import Logging
import MQTTConfig
import SourceEvents
import SyncConfig
import WebConfig
import Systemd

/// Every heartd setting with its default. Loaded from heartd.toml (see docs/CONFIGURATION.md),
/// then command-line overrides; ``render()`` prints the effective configuration back as TOML.
public struct HeartdConfiguration: Sendable, Equatable {
    /// `[bluetooth]`
    public struct Bluetooth: Sendable, Equatable {
        /// Adapter names (e.g. "hci0") to use; empty = all adapters.
        public var adapters: [String] = []
        /// Device addresses ("AA:BB:CC:DD:EE:FF", normalized to upper case) to capture; empty = any.
        public var allow: [String] = []
        /// Also connect to unknown devices that advertise the Heart Rate service (0x180D).
        public var autoHeartRate = false
        /// AcquireNotify (falling back to StartNotify per connection when BlueZ refuses it) or StartNotify only.
        public var subscribe: SubscribeMode = .acquireNotify
        /// No notification for this long on a connected sensor → treat it as stopped (a gap follows).
        public var silentStopSeconds: Double = 10
        /// Upper bound of the exponential reconnect backoff.
        public var reconnectMaxSeconds: Double = 60
        /// On a busy bus or notify socket, read at most this often and take what gathered together (fewer
        /// thread wake-ups, at the cost of up to this much latency to every live client). 0, the default, reads
        /// every message at once: at 0.5 s, 16 sensors reached a subscriber 200 ms (median) to 450 ms (p99) late.
        public var readBatchSeconds: Double = 0
        /// Devices pinned to an adapter, as "AA:BB:CC:DD:EE:FF@hci1" (normalized: address upper case).
        public var pin: [String] = []
        /// Most devices heartd gives one adapter (5: what the smallest common controllers hold; lowered per adapter
        /// when a controller answers Connect with its connection limit).
        public var adapterConnectionLimit = 5
        /// After a connection-limit answer, the device avoids that adapter this long (or waits this long to retry it).
        public var connectionLimitBackoffSeconds: Double = 30

        /// `pin` as address → adapter name (entries were validated when loaded).
        public var pins: [String: String] {
            Dictionary(pin.compactMap { ConfigurationSchema.pinParts($0) }.map { ($0.address, $0.adapter) },
                       uniquingKeysWith: { _, last in last })
        }
    }

    /// `[store]`
    public struct Store: Sendable, Equatable {
        public var path = "/var/lib/heartd/heartd.sqlite"
        /// Open series are checkpointed (crash recovery) at most this often.
        public var checkpointSeconds: Double = 1
        /// While the store fails, at most this many beats are kept in memory (oldest dropped).
        public var memoryBufferBeats = 500_000
    }

    /// `[series]`
    public struct Series: Sendable, Equatable {
        /// Beats per heartbeat series before rotating into a new one (HealthKit uses 1000).
        public var maxBeats = 1000
        /// Values per heart-rate or energy series before rotating (one per notification at most).
        public var maxValues = 1000
        /// Longest span of one series before rotating.
        public var maxDurationSeconds: Double = 3600
        /// Whether a clean stop (SIGTERM, SIGINT) ends the active sessions. Default: they stay active across a
        /// restart (a crash never ends them).
        public var endSessionsOnShutdown = false
        /// No beats for this long → the open series is finished.
        public var idleTimeoutSeconds: Double = 30
        /// Notifications stopping longer than this → next beat is `precededByGap`.
        public var gapThresholdSeconds: Double = 3.0
        /// RR sum vs. wall clock disagreement beyond this → next beat is `precededByGap`.
        public var clockToleranceSeconds: Double = 2.0
        /// RR intervals outside [rrMinMs, rrMaxMs] are dropped and the next beat is flagged.
        public var rrMinMs = 250
        public var rrMaxMs = 2500
    }

    /// `[control]`
    public struct Control: Sendable, Equatable {
        /// Socket path; `$RUNTIME_DIRECTORY` expands to systemd's runtime directory (/run/heartd).
        public var socket = "$RUNTIME_DIRECTORY/control.sock"
        /// Group owning the socket; its members may use read methods. Empty: no group check.
        public var group = "heartd"
        /// Group whose members may use admin methods besides root. Empty: root only.
        public var adminGroup = ""
        /// Group whose members may start and stop sessions besides root and admins. Empty: the members of `group`.
        public var sessionGroup = ""
        public var maxClients = 64
        public var maxLineBytes = 65536
        /// Store reads (queries, `report`) run at once, each on a low-priority thread of its own; one more gets `busy`.
        public var maxReads = 4
    }

    /// `[log]`
    public struct Log: Sendable, Equatable {
        public var level: Logger.Level = .info
        public var target: LogTarget = .auto
    }

    public var bluetooth = Bluetooth()
    public var store = Store()
    public var series = Series()
    public var control = Control()
    public var log = Log()
    /// `[sync]`: delivery to a central PostgreSQL by `heartd-sync` (ConfigurationSchema+Sync.swift; the type is
    /// SyncConfig's, so that this module links no network stack).
    public var sync = SyncSettings()
    /// `[web]`: the live dashboard `heartd-web` (ConfigurationSchema+Web.swift; the type is WebConfig's, so that
    /// this module links no network stack).
    public var web = WebSettings()
    /// `[mqtt]`: heart rate into MQTT by `heartd-mqtt` (ConfigurationSchema+MQTT.swift; the type is MQTTConfig's).
    public var mqtt = MQTTSettings()

    /// The defaults.
    public init() {}

    /// The control socket path with `$RUNTIME_DIRECTORY` (or `${RUNTIME_DIRECTORY}`) expanded;
    /// without that variable, `/run/heartd` is used. systemd may pass several directories separated
    /// by ':'; the first is used.
    public func controlSocketPath(environment: [String: String]) -> String {
        let runtime = environment["RUNTIME_DIRECTORY"]?.split(separator: ":").first.map(String.init) ?? "/run/heartd"
        return control.socket
            .replacing("${RUNTIME_DIRECTORY}", with: runtime)
            .replacing("$RUNTIME_DIRECTORY", with: runtime)
    }
}

extension HeartdConfiguration {
    /// Parses heartd.toml text, then applies `overrides` ("section.key" → value, same validation).
    /// Settings not mentioned keep their defaults.
    public static func parse(_ text: String, source: String = "heartd.toml", overrides: [String: String] = [:]) throws(ConfigurationError) -> HeartdConfiguration {
        var configuration = HeartdConfiguration()
        let (entries, sections) = try TOMLParser.parse(text, source: source)
        for (name, line) in sections where !ConfigurationSchema.sections.contains(name) {
            throw ConfigurationError(.unknownSection, key: name, line: line, source: source,
                                     "unknown section [\(name)]; known: \(ConfigurationSchema.sections.joined(separator: ", "))")
        }
        var lines: [String: Int] = [:]
        for entry in entries {
            guard let section = entry.section else {
                throw ConfigurationError(.unknownKey, key: entry.key, line: entry.line, source: source,
                                         "key outside of any section; put it under one of [\(ConfigurationSchema.sections.joined(separator: "], ["))]")
            }
            let name = section + "." + entry.key
            guard let setting = ConfigurationSchema.setting(name) else {
                throw ConfigurationError(.unknownKey, key: name, line: entry.line, source: source,
                                         "unknown key '\(entry.key)' in [\(section)]; known: \(ConfigurationSchema.keys(in: section).joined(separator: ", "))")
            }
            try setting.apply(entry.value, to: &configuration, line: entry.line, source: source)
            lines[name] = entry.line
        }
        try configuration.applyOverrideValues(overrides)
        try configuration.validateRelations(lines: lines, source: source)
        return configuration
    }

    /// Applies command-line overrides ("section.key" → value). Values are read as TOML values first (`60`, `true`,
    /// `["hci0"]`, `"text"`); when that fails, as a bare string, and for array settings as a comma-separated list.
    mutating func applyOverrideValues(_ overrides: [String: String]) throws(ConfigurationError) {
        for name in overrides.keys.sorted() {
            guard let raw = overrides[name] else { continue }
            guard name.split(separator: ".").count == 2 else {
                throw ConfigurationError(.invalidOverride, key: name, source: "override", "override keys look like 'section.key'")
            }
            guard let setting = ConfigurationSchema.setting(name) else {
                throw ConfigurationError(.unknownKey, key: name, source: "override", "unknown setting '\(name)'")
            }
            let value: TOMLValue
            if let parsed = try? TOMLParser.parseValue(raw) {
                value = parsed
            } else if setting.isArray {
                value = .array(raw.split(separator: ",").map { .string($0.trimmingSpaces()) }.filter { $0 != .string("") })
            } else {
                value = .string(raw)
            }
            try setting.apply(value, to: &self, line: nil, source: "override")
        }
    }

    /// Checks between settings (after all values are applied).
    func validateRelations(lines: [String: Int], source: String) throws(ConfigurationError) {
        if series.rrMinMs >= series.rrMaxMs {
            throw ConfigurationError(.outOfRange, key: "series.rr_min_ms", line: lines["series.rr_min_ms"] ?? lines["series.rr_max_ms"],
                                     source: source, "must be less than series.rr_max_ms (\(series.rrMinMs) ≥ \(series.rrMaxMs))")
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
