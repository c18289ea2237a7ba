import ArgumentParser
import Foundation
import HeartdCommandLine
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
        subcommands: [Run.self, CheckConfig.self, ReplayCommand.self, SyncMoved.self],
        defaultSubcommand: Run.self)
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
