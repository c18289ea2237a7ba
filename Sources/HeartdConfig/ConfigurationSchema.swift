import Logging
import SourceEvents
import Systemd

/// One setting: its `section.key`, how a TOML value is validated and stored, and how it renders.
struct ConfigurationSetting: Sendable {
    let section: String
    let key: String
    let isArray: Bool
    /// Validates and stores; returns a reason for `.wrongType` / `.outOfRange` on failure.
    let store: @Sendable (TOMLValue, inout HeartdConfiguration) -> ConfigurationFailure?
    let render: @Sendable (HeartdConfiguration) -> String

    var name: String { section + "." + key }

    func apply(_ value: TOMLValue, to configuration: inout HeartdConfiguration, line: Int?, source: String) throws(ConfigurationError) {
        if let failure = store(value, &configuration) {
            throw ConfigurationError(failure.code, key: name, line: line, source: source, failure.detail)
        }
    }
}

struct ConfigurationFailure: Sendable {
    let code: ConfigurationError.Code
    let detail: String
    static func type(_ expected: String, _ got: TOMLValue) -> ConfigurationFailure {
        ConfigurationFailure(code: .wrongType, detail: "expected \(expected), got \(got.typeName)")
    }
    static func range(_ detail: String) -> ConfigurationFailure { ConfigurationFailure(code: .outOfRange, detail: detail) }
}

/// The table of every setting heartd reads, in rendering order.
enum ConfigurationSchema {
    typealias Config = HeartdConfiguration

    static let sections = ["bluetooth", "store", "series", "control", "log", "sync", "web", "mqtt"]

    static func setting(_ name: String) -> ConfigurationSetting? { byName[name] }
    static func keys(in section: String) -> [String] { all.filter { $0.section == section }.map(\.key) }

    private static let byName: [String: ConfigurationSetting] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    static let all: [ConfigurationSetting] = captureSettings + syncSettings + webSettings + mqttSettings

    static let captureSettings: [ConfigurationSetting] = [
        strings("bluetooth", "adapters", \.bluetooth.adapters) { name in
            isAdapterName(name) ? nil : "'\(name)' is not an adapter name like \"hci0\""
        },
        strings("bluetooth", "allow", \.bluetooth.allow, normalize: { $0.uppercased() }) { address in
            DeviceAddress.isValid(address) ? nil : "'\(address)' is not a Bluetooth address like \"AA:BB:CC:DD:EE:FF\""
        },
        bool("bluetooth", "auto_heart_rate", \.bluetooth.autoHeartRate),
        choice("bluetooth", "subscribe", \.bluetooth.subscribe),
        seconds("bluetooth", "silent_stop_seconds", \.bluetooth.silentStopSeconds, 0.1...3600),
        seconds("bluetooth", "reconnect_max_seconds", \.bluetooth.reconnectMaxSeconds, 1...86400),
        seconds("bluetooth", "read_batch_seconds", \.bluetooth.readBatchSeconds, 0...1),
        strings("bluetooth", "pin", \.bluetooth.pin, normalize: normalizePin) { entry in
            pinParts(entry) != nil ? nil : "'\(entry)' is not \"AA:BB:CC:DD:EE:FF@hciN\" (a device pinned to an adapter)"
        },
        integer("bluetooth", "adapter_connection_limit", \.bluetooth.adapterConnectionLimit, 1...64),
        seconds("bluetooth", "connection_limit_backoff_seconds", \.bluetooth.connectionLimitBackoffSeconds, 0.1...3600),

        string("store", "path", \.store.path) { $0.hasPrefix("/") ? nil : "must be an absolute path" },
        seconds("store", "checkpoint_seconds", \.store.checkpointSeconds, 0.1...60),
        integer("store", "memory_buffer_beats", \.store.memoryBufferBeats, 0...50_000_000),

        integer("series", "max_beats", \.series.maxBeats, 1...1_000_000),
        integer("series", "max_values", \.series.maxValues, 1...1_000_000),
        seconds("series", "max_duration_seconds", \.series.maxDurationSeconds, 1...86400),
        bool("series", "end_sessions_on_shutdown", \.series.endSessionsOnShutdown),
        seconds("series", "idle_timeout_seconds", \.series.idleTimeoutSeconds, 1...86400),
        seconds("series", "gap_threshold_seconds", \.series.gapThresholdSeconds, 0.1...3600),
        seconds("series", "clock_tolerance_seconds", \.series.clockToleranceSeconds, 0.01...3600),
        integer("series", "rr_min_ms", \.series.rrMinMs, 1...10_000),
        integer("series", "rr_max_ms", \.series.rrMaxMs, 1...10_000),

        string("control", "socket", \.control.socket) { path in
            path.hasPrefix("/") || path.hasPrefix("$RUNTIME_DIRECTORY") || path.hasPrefix("${RUNTIME_DIRECTORY}")
                ? nil : "must be an absolute path or start with $RUNTIME_DIRECTORY"
        },
        string("control", "group", \.control.group) { isGroupName($0) ? nil : "'\($0)' is not a valid group name" },
        string("control", "admin_group", \.control.adminGroup) { isGroupName($0) ? nil : "'\($0)' is not a valid group name" },
        string("control", "session_group", \.control.sessionGroup) { isGroupName($0) ? nil : "'\($0)' is not a valid group name" },
        integer("control", "max_clients", \.control.maxClients, 1...4096),
        integer("control", "max_line_bytes", \.control.maxLineBytes, 1024...(16 * 1024 * 1024)),
        integer("control", "max_reads", \.control.maxReads, 1...64),

        choice("log", "level", \.log.level),
        choice("log", "target", \.log.target),
    ]

    // MARK: - Setting kinds

    static func bool(_ section: String, _ key: String, _ path: WritableKeyPath<Config, Bool> & Sendable) -> ConfigurationSetting {
        ConfigurationSetting(section: section, key: key, isArray: false, store: { value, config in
            guard case .boolean(let flag) = value else { return .type("a boolean (true or false)", value) }
            config[keyPath: path] = flag
            return nil
        }, render: { $0[keyPath: path] ? "true" : "false" })
    }

    static func integer(_ section: String, _ key: String, _ path: WritableKeyPath<Config, Int> & Sendable, _ range: ClosedRange<Int>) -> ConfigurationSetting {
        ConfigurationSetting(section: section, key: key, isArray: false, store: { value, config in
            guard case .integer(let number) = value else { return .type("an integer", value) }
            guard range.contains(number) else { return .range("must be between \(range.lowerBound) and \(range.upperBound) (got \(number))") }
            config[keyPath: path] = number
            return nil
        }, render: { String($0[keyPath: path]) })
    }

    /// A duration in seconds: integer or float.
    static func seconds(_ section: String, _ key: String, _ path: WritableKeyPath<Config, Double> & Sendable, _ range: ClosedRange<Double>) -> ConfigurationSetting {
        ConfigurationSetting(section: section, key: key, isArray: false, store: { value, config in
            let number: Double
            switch value {
            case .integer(let whole): number = Double(whole)
            case .float(let fraction): number = fraction
            default: return .type("a number of seconds", value)
            }
            guard range.contains(number) else { return .range("must be between \(format(range.lowerBound)) and \(format(range.upperBound)) seconds (got \(format(number)))") }
            config[keyPath: path] = number
            return nil
        }, render: { format($0[keyPath: path]) })
    }

    static func string(_ section: String, _ key: String, _ path: WritableKeyPath<Config, String> & Sendable,
                       check: @escaping @Sendable (String) -> String?) -> ConfigurationSetting {
        ConfigurationSetting(section: section, key: key, isArray: false, store: { value, config in
            guard case .string(let text) = value else { return .type("a string", value) }
            if let reason = check(text) { return .range(reason) }
            config[keyPath: path] = text
            return nil
        }, render: { quote($0[keyPath: path]) })
    }

    static func strings(_ section: String, _ key: String, _ path: WritableKeyPath<Config, [String]> & Sendable,
                        normalize: @escaping @Sendable (String) -> String = { $0 },
                        check: @escaping @Sendable (String) -> String?) -> ConfigurationSetting {
        ConfigurationSetting(section: section, key: key, isArray: true, store: { value, config in
            guard case .array(let elements) = value else { return .type("an array of strings", value) }
            var texts: [String] = []
            for element in elements {
                guard case .string(let text) = element else { return .type("an array of strings", element) }
                let normalized = normalize(text)
                if let reason = check(normalized) { return .range(reason) }
                if !texts.contains(normalized) { texts.append(normalized) }
            }
            config[keyPath: path] = texts
            return nil
        }, render: { "[" + $0[keyPath: path].map(quote).joined(separator: ", ") + "]" })
    }

    static func choice<T: RawRepresentable & CaseIterable & Sendable>(_ section: String, _ key: String,
                                                                      _ path: WritableKeyPath<Config, T> & Sendable) -> ConfigurationSetting where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        return ConfigurationSetting(section: section, key: key, isArray: false, store: { value, config in
            guard case .string(let text) = value else { return .type("a string, one of \(names.joined(separator: ", "))", value) }
            guard let choice = T(rawValue: text) else { return .range("must be one of \(names.joined(separator: ", ")) (got \"\(text)\")") }
            config[keyPath: path] = choice
            return nil
        }, render: { quote($0[keyPath: path].rawValue) })
    }

    // MARK: - Value checks and formatting

    /// `"aa:bb:…@hci1"` → (`AA:BB:…`, `hci1`), or nil when it is not a pin.
    static func pinParts(_ entry: String) -> (address: String, adapter: String)? {
        let parts = entry.split(separator: "@", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, DeviceAddress.isValid(parts[0].uppercased()), isAdapterName(parts[1]) else { return nil }
        return (parts[0].uppercased(), parts[1])
    }

    static func normalizePin(_ entry: String) -> String {
        pinParts(entry).map { "\($0.address)@\($0.adapter)" } ?? entry
    }

    static func isAdapterName(_ name: String) -> Bool {
        name.hasPrefix("hci") && name.count > 3 && name.dropFirst(3).allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Empty (meaning "none") or a POSIX-ish group name.
    static func isGroupName(_ name: String) -> Bool {
        name.isEmpty || (name.count <= 32 && name.first.map { $0.isLetter || $0 == "_" } == true
            && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") })
    }

    static func format(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }

    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}


extension HeartdConfiguration {
    /// The effective configuration as TOML (every setting, in schema order), parseable by ``parse(_:source:overrides:)``.
    public func render() -> String {
        var out = "# heartd effective configuration\n"
        for section in ConfigurationSchema.sections {
            out += "\n[\(section)]\n"
            for setting in ConfigurationSchema.all where setting.section == section {
                out += "\(setting.key) = \(setting.render(self))\n"
            }
        }
        return out
    }
}
