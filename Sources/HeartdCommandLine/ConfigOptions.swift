import ArgumentParser
import Foundation
import HeartdConfig
import Logging
import Systemd

/// Options shared by every mode that reads the configuration file, in heartd and in heartd-sync: both read the
/// same heartd.toml with the same overrides, so `heartd check-config` shows what either program will use.
public struct ConfigOptions: ParsableArguments {
    public init() {}

    public static let defaultPath = "/etc/heartd/heartd.toml"

    @Option(name: .long, help: "Configuration file (a missing default file means all defaults).")
    public var config: String = ConfigOptions.defaultPath

    @Option(name: .long, help: "Store path (overrides store.path).")
    public var db: String?

    @Option(name: .long, help: "Control socket path (overrides control.socket).")
    public var socket: String?

    @Option(name: .long, help: "Capture this device address (repeatable; adds to bluetooth.allow).")
    public var allow: [String] = []

    @Option(name: .long, help: "Use only this adapter, e.g. hci0 (repeatable; overrides bluetooth.adapters).")
    public var adapter: [String] = []

    @Flag(name: .long, help: "Capture any device advertising the Heart Rate service (bluetooth.auto_heart_rate).")
    public var autoHeartRate = false

    @Option(name: .long, help: "acquire-notify (default; StartNotify when BlueZ refuses it) or start-notify (bluetooth.subscribe).")
    public var subscribe: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical (log.level).")
    public var logLevel: String?

    @Option(name: .long, help: "auto, journal or stderr (log.target).")
    public var logTarget: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Any setting, as section.key=value (repeatable).", valueName: "section.key=value"))
    public var settings: [String] = []

    public func overrides() throws -> [String: String] {
        var o: [String: String] = [:]
        for s in settings {
            guard let eq = s.firstIndex(of: "=") else { throw ValidationError("--set takes section.key=value, got '\(s)'") }
            o[String(s[..<eq])] = String(s[s.index(after: eq)...])
        }
        if let db { o["store.path"] = "\"\(absolute(db))\"" }
        if let socket { o["control.socket"] = "\"\(absolute(socket))\"" }
        if !allow.isEmpty { o["bluetooth.allow"] = allow.map { $0.uppercased() }.joined(separator: ",") }
        if !adapter.isEmpty { o["bluetooth.adapters"] = adapter.joined(separator: ",") }
        if autoHeartRate { o["bluetooth.auto_heart_rate"] = "true" }
        if let subscribe { o["bluetooth.subscribe"] = "\"\(subscribe)\"" }
        if let logLevel { o["log.level"] = "\"\(logLevel)\"" }
        if let logTarget { o["log.target"] = "\"\(logTarget)\"" }
        return o
    }

    /// Loads the file (the default path may be missing: all defaults) and applies the command-line overrides.
    /// An invalid file is an error naming the key and line: the daemon refuses to start rather than guess.
    public func load() throws -> HeartdConfiguration {
        do {
            return try HeartdConfiguration.load(path: config, overrides: try overrides(),
                                                missingIsDefault: config == ConfigOptions.defaultPath)
        } catch let error as ConfigurationError {
            throw ValidationError("\(error)")
        }
    }
}

/// Command-line paths are relative to the working directory; the configuration wants absolute ones.
public func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
}

public func bootstrapLogging(_ configuration: HeartdConfiguration) -> Logger {
    let bootstrap = LoggingBootstrap(target: configuration.log.target, level: configuration.log.level)
    LoggingSystem.bootstrap { bootstrap.handler(label: $0) }
    return Logger(label: "heartd")
}
