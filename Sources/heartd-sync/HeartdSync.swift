import ArgumentParser
import Foundation
import HeartdCommandLine
import HeartQueries
import Logging
import Sync

/// `heartd-sync`: delivers the store to the central PostgreSQL (docs/CENTRAL.md). Its own program, process and unit
/// (systemd/heartd-sync.service): network, no Bluetooth, the store read-only. It is what `heartd sync` was; the
/// capture daemon no longer links it, nor NIO, BoringSSL or PostgresNIO (docs/ARCHITECTURE.md).
struct HeartdSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "heartd-sync", abstract: "Deliver the store's changes to the central PostgreSQL ([sync] settings).",
        discussion: """
        Reads [sync] from the same heartd.toml as heartd (`heartd check-config` shows it) and the store read-only.
        Exit status: 0 when --once caught up or a signal stopped it; 1 on an error (with --once: the first); 3 when \
        another sync process holds this store or gateway; 64 on a bad option or configuration, or no sync.url.
        """,
        version: HeartdVersion.string)

    @OptionGroup var options: ConfigOptions

    @Flag(name: .long, help: "Deliver what there is, then exit (for cron); exit 1 on the first error.")
    var once = false

    func run() async throws {
        let configuration = try options.load()
        let logger = bootstrapLogging(configuration)
        let settings = configuration.sync
        guard !settings.url.isEmpty else {
            throw ValidationError("sync.url is not set: add a [sync] section with url = \"postgres://user@host/database\"")
        }
        let runner: SyncRunner
        do {
            let connector = try CentralConnector(settings: settings, environment: ProcessInfo.processInfo.environment)
            runner = SyncRunner(settings: settings, storePath: configuration.store.path,
                                identity: GatewayIdentity(name: settings.effectiveGateway, version: HeartdVersion.string),
                                connector: connector, logger: logger)
        } catch {
            logger.critical("heartd-sync cannot start", metadata: ["code": "\(error.code.rawValue)", "error": "\(error.detail)"])
            throw ExitCode.failure
        }
        logger.info("heartd-sync starting", metadata: [
            "store": "\(configuration.store.path)", "central": "\(runner.connector.url)", "gateway": "\(runner.identity.name)",
            "once": "\(once)"])
        let once = once
        // SIGTERM/SIGINT cancel the loop between batches; a batch in flight commits or rolls back whole.
        let task = Task { try await runner.run(once: once) }
        let signals = SignalCancellation(task: task)
        defer { withExtendedLifetime(signals) {} }
        do {
            try await task.value
        } catch let error as SyncError {
            logger.error("heartd-sync stopped", metadata: ["code": "\(error.code.rawValue)", "error": "\(error.detail)"])
            throw ExitCode(error.code == .alreadyRunning ? 3 : 1)
        }
    }
}

/// Cancels a task on SIGTERM or SIGINT.
final class SignalCancellation {
    private let sources: [any DispatchSourceSignal]
    // A serial queue runs on libdispatch's overcommit threads; a global queue's would start its worker-pool
    // monitor, a one-second tick for the life of the process (docs/ARCHITECTURE.md, "No periodic tick anywhere").
    private static let queue = DispatchQueue(label: "heartd.sync.signals")

    init(task: Task<Void, any Error>) {
        sources = [SIGTERM, SIGINT].map { signo in
            signal(signo, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signo, queue: Self.queue)
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
    }
}
