import Capture
import DBus
import Foundation
import Logging
import Posix
import SourceEvents
import TestBus

/// The project's fake BlueZ (Tests/BlueZTests/Fixtures/fake_bluez.py) on a private bus serving `devices`, and heartd's
/// capture client in this process subscribed to all of them. Events go to an empty handler (`handler`) or into the
/// client's stream, which is drained; nothing else runs on them: no pipeline, no store.
final class CaptureRig: @unchecked Sendable {  // set once in init; `stop()` from the task that made it
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// What one stream cost this process.
    struct Cost {
        var cpuSeconds: Double
        var wallSeconds: Double
        var sent: Int
        var received: Int
        var microsecondsPerNotification: Double { cpuSeconds / Double(max(received, 1)) * 1e6 }
        var millisecondsPerSecond: Double { cpuSeconds * 1000 / wallSeconds }
    }

    let devices: [String]
    let capture: BlueZCapture
    private let bus: PrivateBus
    private let fake: Helper
    private let fakeControl: FakeBlueZControl
    private let connections: [DBusConnection]
    private let running: [Task<Void, Never>]

    init(devices: [String], policy: CapturePolicy, handler: Bool, fakeArguments: [String] = []) async throws {
        self.devices = devices
        var logger = Logger(label: "heartbench-capture")
        logger.logLevel = .warning
        bus = try PrivateBus()
        fake = try Helper(script: try String(contentsOfFile: FakeBlueZControl.script, encoding: .utf8), name: "fake_bluez.py",
                          in: bus.dir, arguments: ["--address", bus.address, "--devices", devices.joined(separator: ","),
                                                   "--known"] + fakeArguments)
        let control = try await DBusConnection.connect(address: bus.address, logger: logger)
        guard await eventually(timeout: 30, { try await control.nameOwner("org.bluez") != nil }) else {
            control.close()
            throw Failure(description: "the fake BlueZ did not start within 30 s")
        }
        let client = try await DBusConnection.connect(address: bus.address, logger: logger)
        connections = [control, client]
        let fakeControl = FakeBlueZControl(connection: control)
        self.fakeControl = fakeControl
        var onEvent: (@Sendable (SourceEvent) -> Void)? = nil
        if handler { onEvent = { _ in } }
        let capture = BlueZCapture(connection: client, policy: policy, logger: logger, onEvent: onEvent)
        self.capture = capture
        running = [Task { for await _ in capture.events {} }, Task { try? await capture.run() }]
        for address in devices {
            // StartNotify: a notify session; AcquireNotify: the socket handed out.
            let subscribed = await eventually(timeout: 30) {
                let stats = await fakeControl.stats(address)
                return stats["subscribed"] == 1 || stats["fd_open"] == 1
            }
            guard subscribed else {
                await stop()
                throw Failure(description: "capture did not subscribe to \(address) within 30 s")
            }
        }
    }

    /// Every device streams `count` notifications at `rate` a second (the fake paces them); returns this process's CPU
    /// from the first request until capture counted them all (or `count / rate + 10` s passed).
    func stream(rate: Double, count: Int) async throws -> Cost {
        let before = received()
        let cpu0 = ProcessCPUClock.now(), wall0 = MonotonicClock.now()
        for address in devices {
            _ = try await fakeControl.call("Stream", [.string(address), .double(rate), .uint32(UInt32(count))])
        }
        let total = count * devices.count
        _ = await eventually(timeout: Double(count) / rate + 10, every: .milliseconds(100)) { self.received() - before >= total }
        return Cost(cpuSeconds: ProcessCPUClock.now() - cpu0, wallSeconds: MonotonicClock.now() - wall0, sent: total,
                    received: received() - before)
    }

    /// This process's CPU while the devices stay connected and silent for `seconds`.
    func idle(seconds: Double) async throws -> Cost {
        let cpu0 = ProcessCPUClock.now(), wall0 = MonotonicClock.now()
        try await Task.sleep(for: .seconds(seconds))
        return Cost(cpuSeconds: ProcessCPUClock.now() - cpu0, wallSeconds: MonotonicClock.now() - wall0, sent: 0, received: 0)
    }

    func received() -> Int { capture.status().devices.map(\.notifications).reduce(0, +) }

    func stop() async {
        for task in running { task.cancel() }
        for task in running { await task.value }
        for connection in connections { connection.close() }
        if fake.process.isRunning {
            kill(fake.process.processIdentifier, SIGKILL)
            fake.process.waitUntilExit()
        }
        bus.kill()
    }
}
