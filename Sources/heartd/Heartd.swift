import ArgumentParser
import Foundation
import HeartdConfig
import HeartdKit
import HeartQueries
import Logging
import Systemd

/// The command line (`HeartdMain` is the program's entry and runs it).
struct Heartd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartd",
        abstract: "Always-on heart-rate capture from BLE sensors through BlueZ.",
        version: HeartdVersion.string,
        subcommands: [Run.self, CheckConfig.self, ReplayCommand.self, SyncCommand.self],
        defaultSubcommand: Run.self)
}

/// Options shared by every mode that reads the configuration file.
struct ConfigOptions: ParsableArguments {
    static let defaultPath = "/etc/heartd/heartd.toml"

    @Option(name: .long, help: "Configuration file (a missing default file means all defaults).")
    var config: String = ConfigOptions.defaultPath

    @Option(name: .long, help: "Store path (overrides store.path).")
    var db: String?

    @Option(name: .long, help: "Control socket path (overrides control.socket).")
    var socket: String?

    @Option(name: .long, help: "Capture this device address (repeatable; adds to bluetooth.allow).")
    var allow: [String] = []

    @Option(name: .long, help: "Use only this adapter, e.g. hci0 (repeatable; overrides bluetooth.adapters).")
    var adapter: [String] = []

    @Flag(name: .long, help: "Capture any device advertising the Heart Rate service (bluetooth.auto_heart_rate).")
    var autoHeartRate = false

    @Option(name: .long, help: "acquire-notify (default; StartNotify when BlueZ refuses it) or start-notify (bluetooth.subscribe).")
    var subscribe: String?

    @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical (log.level).")
    var logLevel: String?

    @Option(name: .long, help: "auto, journal or stderr (log.target).")
    var logTarget: String?

    @Option(name: .customLong("set"), help: ArgumentHelp("Any setting, as section.key=value (repeatable).", valueName: "section.key=value"))
    var settings: [String] = []

    func overrides() throws -> [String: String] {
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
    func load() throws -> HeartdConfiguration {
        do {
            return try HeartdConfiguration.load(path: config, overrides: try overrides(),
                                                missingIsDefault: config == ConfigOptions.defaultPath)
        } catch let error as ConfigurationError {
            throw ValidationError("\(error)")
        }
    }
}

/// Command-line paths are relative to the working directory; the configuration wants absolute ones.
func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
}

func bootstrapLogging(_ configuration: HeartdConfiguration) -> Logger {
    let bootstrap = LoggingBootstrap(target: configuration.log.target, level: configuration.log.level)
    LoggingSystem.bootstrap { bootstrap.handler(label: $0) }
    return Logger(label: "heartd")
}

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "run", abstract: "Run the daemon (the default).")

    @OptionGroup var options: ConfigOptions

    @Flag(name: .long, help: "Capture from the built-in simulated sensor instead of BlueZ.")
    var simulate = false

    @Option(name: .long, help: "Simulator speed: 1 is real time.")
    var simulateSpeed: Double = 1

    /// For shared/bench's harness: print `received=N` (notifications handled) on stdout when stopping, and stop
    /// when the sensor drops the link. Also prints the CPU between the first and last value (`StreamCPUProbe`).
    @Flag(name: .long, help: .hidden)
    var printReceived = false

    func run() async throws {
        let configuration = try options.load()
        let logger = bootstrapLogging(configuration)
        guard simulateSpeed > 0, simulateSpeed.isFinite else { throw ValidationError("--simulate-speed must be positive") }
        var daemon = Daemon(configuration: configuration, mode: simulate ? .simulate(speed: simulateSpeed) : .bluez,
                            environment: ProcessInfo.processInfo.environment, logger: logger)
        daemon.exitOnFirstDisconnect = printReceived
        if printReceived { daemon.cpuProbe = StreamCPUProbe() }
        do {
            let devices = try await daemon.run()
            if let probe = daemon.cpuProbe, let summary = probe.summary { print(summary) }
            if printReceived { print("received=\(devices.reduce(0) { $0 + $1.counters.notifications })") }
        } catch {
            logger.critical("heartd cannot run", metadata: ["error": "\(error)"])
            throw ExitCode.failure
        }
    }
}

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config", abstract: "Validate the configuration and print the effective settings.")

    @OptionGroup var options: ConfigOptions

    func run() throws {
        print(try options.load().render(), terminator: "")
    }
}

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay", abstract: "Ingest a JSON-lines recording into a store (docs/REPLAY.md).")

    @Option(name: .long, help: "The store to write (created if missing).")
    var db: String

    @Option(name: .long, help: "Configuration file for the series settings.")
    var config: String = ConfigOptions.defaultPath

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    @Argument(help: "The recording (`-`: standard input).")
    var file: String

    func run() async throws {
        let configuration: HeartdConfiguration
        do {
            configuration = try HeartdConfiguration.load(path: config, missingIsDefault: config == ConfigOptions.defaultPath)
        } catch {
            throw ValidationError("\(error)")
        }
        var handler = StderrLogHandler(label: "heartd.replay")
        handler.logLevel = .warning
        let logger = Logger(label: "heartd.replay", factory: { _ in handler })
        let report: Replay.Report
        do {
            report = try await Replay(settings: configuration.ingestSettings, logger: logger)
                .run(path: file, databasePath: absolute(db))
        } catch {
            // ReplayError and StoreError say what and where with a code; no stack of wrappers.
            FileHandle.standardError.write(Data("heartd replay: \(error)\n".utf8))
            throw ExitCode.failure
        }
        for issue in report.issues {
            FileHandle.standardError.write(Data("\(file):\(issue.line): skipped (\(issue.code.rawValue)): \(issue.reason)\n".utf8))
        }
        if report.issueCount > report.issues.count {
            FileHandle.standardError.write(Data("\(file): \(report.issueCount - report.issues.count) more bad line(s) skipped\n".utf8))
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            let beats = report.devices.reduce(0) { $0 + $1.counters.beats }
            print("replayed \(report.events) events from \(file): \(report.samplesSaved) samples saved, \(beats) beats, " +
                  "\(report.issueCount) bad line(s) skipped")
        }
    }
}
