import Capture
import Control
import DBus
import Foundation
import HeartdConfig
import HeartQueries
import Ingest
import LogFields
import Logging
import SourceEvents
import Synchronization

/// Live capture through bluetoothd: the BlueZ client's events as the pipeline's `Source`, and `allow`/`forget`
/// applied to its policy (and kept in `AllowListFile`).
enum BlueZCaptureFactory {
    static func make(configuration: HeartdConfiguration, environment: [String: String], pipeline: IngestPipeline,
                     gate: EventGate, logger: Logger) async throws -> (any Source, any CaptureControl) {
        let batching = ReadBatching(interval: .milliseconds(Int((configuration.bluetooth.readBatchSeconds * 1000).rounded())))
        let connection: DBusConnection
        do {
            // StartNotify values are stamped when read: batch the bus only where no sensor's stamps suffer.
            connection = try await DBusConnection.system(logger: logger, batching: batching.keepingArrivalTimes)
        } catch {
            throw DaemonError(.capture, "cannot connect to the D-Bus system bus (\(error)); is dbus running? " +
                              "Without Bluetooth, try --simulate")
        }
        let file = AllowListFile(storePath: configuration.store.path)
        let allowList = AllowListFile.effective(configured: configuration.bluetooth.allow, file.load())
        let b = configuration.bluetooth
        var policy = CapturePolicy(
            adapters: Set(b.adapters), allowList: allowList, autoHeartRate: b.autoHeartRate,
            subscribeMode: b.subscribe,
            silentStopTimeout: b.silentStopSeconds, backoffMaximum: b.reconnectMaxSeconds, readBatching: batching)
        policy.pins = b.pins
        policy.adapterConnectionLimit = b.adapterConnectionLimit
        policy.connectionLimitBackoff = b.connectionLimitBackoffSeconds
        if allowList.isEmpty && !b.autoHeartRate {
            logger.warning("no device to capture: the allow-list is empty and auto_heart_rate is off (heartctl allow ADDRESS, or bluetooth.allow in the configuration)")
        }
        // Events go from the client's handler straight into the pipeline, on the thread that received them (the
        // D-Bus reader, or an AcquireNotify socket's): no other thread wakes up per notification. The source's
        // stream then only carries the end of capture.
        let (events, continuation) = AsyncStream<SourceEvent>.makeStream()
        let capture = BlueZCapture(connection: connection, policy: policy, logger: logger, onEvent: { event in
            guard gate.isOpen else { return }
            pipeline.handleNow(event)
        })
        let control = BlueZCaptureControl(capture: capture, file: file, configured: b.allow, logger: logger)
        return (BlueZSource(capture: capture, connection: connection, stream: events, continuation: continuation,
                            logger: logger), control)
    }
}

/// Closed once capture shuts down, so that a notification racing the shutdown does not open a series that
/// nothing would finish.
public final class EventGate: Sendable {
    private let open = Mutex(true)

    public init() {}

    public var isOpen: Bool { open.withLock { $0 } }

    public func close() {
        open.withLock { $0 = false }
    }
}

/// The BlueZ client as a `Source`: runs the client while the daemon runs; its events reach the pipeline
/// directly (see `BlueZCaptureFactory`), and its stream finishes when capture ends — after the system bus
/// connection (and its `heartd-dbus` thread) was closed.
struct BlueZSource: Source {
    let capture: BlueZCapture
    let connection: DBusConnection
    let stream: AsyncStream<SourceEvent>
    let continuation: AsyncStream<SourceEvent>.Continuation
    let logger: Logger

    /// The events; the client runs until the consumer stops (daemon shutdown) or the bus goes away.
    func events() -> AsyncStream<SourceEvent> {
        let capture = self.capture, logger = self.logger, continuation = self.continuation
        let connection = self.connection
        let runner = Task {
            defer { connection.close() }
            do {
                try await capture.run()
                if Task.isCancelled {
                    logger.debug("BlueZ capture stopped")
                } else {
                    logger.error("BlueZ capture ended: the D-Bus system bus connection was lost")
                }
            } catch {
                logger.error("BlueZ capture stopped", metadata: ["error": "\(error)"])
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in runner.cancel() }
        return stream
    }

}

/// `status`, `allow` and `forget` for live capture.
final class BlueZCaptureControl: CaptureControl {
    let capture: BlueZCapture
    let file: AllowListFile
    let configured: [String]
    let logger: Logger
    private let contents: Mutex<AllowListFile.Contents>

    init(capture: BlueZCapture, file: AllowListFile, configured: [String], logger: Logger) {
        self.capture = capture
        self.file = file
        self.configured = configured
        self.logger = logger
        contents = Mutex(file.load())
    }

    func status() async -> CaptureReport {
        CaptureReport(source: .bluez,
                      allowList: contents.withLock { AllowListFile.effective(configured: configured, $0) }.sorted(),
                      bluez: capture.status())
    }

    func allow(_ address: String) async throws(ControlError) {
        try await change(address) { $0.forgotten.remove(address); $0.allowed.insert(address) }
    }

    func forget(_ address: String) async throws(ControlError) {
        try await change(address) { $0.allowed.remove(address); $0.forgotten.insert(address) }
    }

    func nearby(seconds: Double) async throws(ControlError) -> [NearbyCall.Sensor] {
        do {
            return try await capture.nearby(seconds: seconds).map {
                NearbyCall.Sensor(address: $0.address, name: $0.name, rssi: $0.rssi, adapter: $0.adapter)
            }
        } catch {
            throw ControlError(.unavailable, "nearby: \(error.detail)")
        }
    }

    private func change(_ address: String, _ edit: (inout AllowListFile.Contents) -> Void) async throws(ControlError) {
        let updated = contents.withLock { c in edit(&c); return c }
        do {
            try file.save(updated)
        } catch {
            throw ControlError(.unavailable, "cannot save the allow-list to \(file.path): \(error)")
        }
        let list = AllowListFile.effective(configured: configured, updated)
        await capture.setAllowList(list)
        logger.notice("allow-list changed", metadata: [
            LogField.device.key: "\(address)", "allow": "\(list.sorted().joined(separator: ","))",
        ])
    }
}
