import Control
import Foundation
import HealthModel
import HeartdConfig
import HeartQueries
import HeartStore
import Ingest
import Logging
import ServiceLifecycle
import SourceEvents
import Systemd
import LogFields

/// The daemon: opens the store, recovers series a crash left open, then runs capture and the control socket
/// as services until SIGTERM/SIGINT, when every open series is finished and saved.
public struct Daemon: Sendable {
    public let configuration: HeartdConfiguration
    public let mode: CaptureMode
    public let environment: [String: String]
    public let logger: Logger
    /// Stop after the first disconnect (for shared/bench's harness, whose sensor drops the link at the end).
    public var exitOnFirstDisconnect = false
    /// Measures CPU per value for benchmarks (see `StreamCPUProbe`).
    public var cpuProbe: StreamCPUProbe?

    public init(configuration: HeartdConfiguration, mode: CaptureMode, environment: [String: String], logger: Logger) {
        self.configuration = configuration
        self.mode = mode
        self.environment = environment
        self.logger = logger
    }

    /// Runs until SIGTERM/SIGINT (or until capture fails); returns the devices' final counters.
    @discardableResult
    public func run() async throws -> [DeviceStatus] {
        let notifier = try? SystemdNotifier(environment: environment)
        // Not ready (a full disk, a read-only file system): capture starts anyway and StoreOpenService retries.
        let daemonStore = DaemonStore(path: configuration.store.path, logger: logger)
        daemonStore.prepare()
        let database = daemonStore.database
        let hub = LiveEventHub(logger: logger)
        let monitor = ActiveSessionMonitor()
        let statusLine = notifier.map { notifier in SystemdStatusLine { try? notifier.status($0) } }
        let stop = AsyncStream<Void>.makeStream()
        let exitOnDisconnect = exitOnFirstDisconnect, probe = cpuProbe
        // Saves and checkpoint appends run on the store writer, never on the thread that reads BlueZ.
        let store = BackgroundSink(DaemonStoreSink(store: daemonStore),
                                   memoryBufferBeats: configuration.store.memoryBufferBeats, logger: logger,
                                   outageMetadata: [LogField.messageID.key: "\(MessageID.storeError.hex)"],
                                   recoveryMetadata: [LogField.messageID.key: "\(MessageID.storeRecovered.hex)"])
        let pipeline = IngestPipeline(settings: configuration.ingestSettings, sink: store,
                                      logger: logger, onLiveEvent: { event in
                                          hub.publish(event)
                                          monitor.observe(event)
                                          if let dfa = monitor.dfa.observe(event, wanted: { hub.watcherCount > 0 || monitor.covers(device: $0) }) {
                                              hub.publish(.dfaAlpha1(dfa))
                                          }
                                          statusLine?.observe(event)
                                          // One switch on the tag, binding nothing: it runs for every value.
                                          switch event {
                                          case .heartRate: probe?.value()
                                          case .disconnected: if exitOnDisconnect { stop.continuation.yield() }
                                          case .connected, .beats, .battery, .contact, .seriesFinished: break
                                          }
                                      })
        // Sessions active before a crash or stop are active again: their devices' series keep being tagged.
        daemonStore.whenReady { [logger] database in
            do {
                try applyPeople(pipeline: pipeline, database: database)
                try applyActiveSessions(pipeline: pipeline, database: database, monitor: monitor)
            } catch {
                logger.error("cannot read the active sessions", metadata: ["error": "\(error)"])
            }
        }
        let gate = EventGate()
        let (source, capture) = try await makeSource(pipeline: pipeline, gate: gate)
        let handler = DaemonControlHandler(pipeline: pipeline, database: database, hub: hub, capture: capture, mode: mode.kind,
                                           store: store, daemonStore: daemonStore, monitor: monitor,
                                           maxReads: configuration.control.maxReads)
        let socketPath = configuration.controlSocketPath(environment: environment)
        let server: ControlServer
        do {
            server = try ControlServer(configuration: configuration.controlServerConfiguration(environment: environment),
                                       handler: handler, logger: logger)
        } catch where error.code == .unknownGroup {
            throw DaemonError(.controlSocket, "\(error.detail): create it (systemd-sysusers does, from heartd.sysusers) " +
                              "or set control.group = \"\" to keep the socket private to heartd's own user and group")
        } catch {
            throw DaemonError(.controlSocket, "control socket \(socketPath): \(error)")
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                // Shut down in reverse order: capture first (it saves the open series), then the socket.
                .init(service: StoreOpenService(store: daemonStore), successTerminationBehavior: .ignore),
                .init(service: StoreWriterService(store: store, logger: logger)),
                .init(service: ControlService(server: server)),
                .init(service: IngestService(pipeline: pipeline, source: source, gate: gate,
                                             notifier: notifier, logger: logger)),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        logger.notice("heartd started", metadata: [
            "version": "\(HeartdVersion.string)", "mode": "\(mode.name)", "store": "\(configuration.store.path)",
            "socket": "\(socketPath)",
        ])
        try? notifier?.ready(status: SystemdStatusLine.waiting)
        let stopper = Task {
            for await _ in stop.stream {
                await group.triggerGracefulShutdown()
                return
            }
        }
        defer { stopper.cancel() }
        try await group.run()
        // The open series are saved (IngestService drained the store writer): their statistics are complete.
        if configuration.series.endSessionsOnShutdown, daemonStore.isReady {
            endActiveSessions(database: database, logger: logger)
        }
        hub.finishAll()
        handler.changes.finishAll()
        try? database.checkpointWAL()
        logger.notice("heartd stopped")
        return await pipeline.status()
    }

    func makeSource(pipeline: IngestPipeline, gate: EventGate) async throws -> (any Source, any CaptureControl) {
        switch mode {
        case .simulate(let speed):
            // Faster than real time, the sensor's own clock runs fast too: arrival times then agree with the RR
            // chain (on the wall clock they would not, and every notification would count as a clock jump).
            let clock: SimulatorClock = speed == 1 ? .real : .simulated(start: .now())
            return (SimulatedSensor(speed: speed, clock: clock), FixedCaptureControl(kind: .simulator))
        case .bluez:
            return try await BlueZCaptureFactory.make(configuration: configuration, environment: environment,
                                                      pipeline: pipeline, gate: gate, logger: logger)
        }
    }
}

/// Why the daemon could not start.
public struct DaemonError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        case controlSocket = "control-socket"
        case capture
    }
    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
