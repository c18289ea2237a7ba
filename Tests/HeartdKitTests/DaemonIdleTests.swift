import DBus
import Foundation
import Testing
import TaskThreads
import TestBus

/// heartd connected to a sensor that sends nothing wakes no thread at all: no periodic tick anywhere
/// (docs/ARCHITECTURE.md). What this guards against is libdispatch's worker-pool monitor, a one-second timer on its
/// manager thread that the first worker of a non-overcommit root queue starts — through Swift concurrency's default
/// executor or `DispatchQueue.global()` — and never stops. heartd's tasks run on its own threads (`TaskThreads`).
@Suite(.serialized, .enabled(if: TaskThreads.isCompiledIn, "built without the trait CustomGlobalExecutor: libdispatch's monitor ticks"))
struct DaemonIdleTests {
    static let address = "A0:9E:1A:7C:00:01"

    /// Thread id → (name, times it has run), from /proc/PID/task/*/schedstat.
    static func threads(of pid: Int32) -> [String: (name: String, slices: Int)] {
        var result: [String: (String, Int)] = [:]
        let tasks = "/proc/\(pid)/task"
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let comm = try? String(contentsOfFile: "\(tasks)/\(tid)/comm", encoding: .utf8),
                  let stat = try? String(contentsOfFile: "\(tasks)/\(tid)/schedstat", encoding: .utf8),
                  let slices = stat.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            else { continue }
            result[tid] = (comm.trimmingCharacters(in: .whitespacesAndNewlines), slices)
        }
        return result
    }

    @Test func aConnectedSilentSensorWakesNoThreadOfHeartd() async throws {
        let bus = try PrivateBus()
        defer { bus.kill() }
        let fake = try Helper(script: try String(contentsOfFile: DaemonBlueZTests.fakeScript, encoding: .utf8),
                              name: "fake_bluez.py", in: bus.dir,
                              arguments: ["--address", bus.address, "--devices", Self.address, "--known"])
        defer { kill(fake.process.processIdentifier, SIGKILL) }
        let control = try await DBusConnection.connect(address: bus.address, logger: .init(label: "test"))
        defer { control.close() }
        let fakeControl = FakeBlueZControl(connection: control)
        let deadline = Date().addingTimeInterval(10)
        while (try? await control.nameOwner("org.bluez")) ?? nil == nil, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let dir = try TestDirectory("idle")
        defer { dir.remove() }
        // No silent-stop recovery during the test: the sensor is silent on purpose.
        let daemon = try DaemonProcess(dir: dir, settings: ["bluetooth.allow=[\"\(Self.address)\"]",
                                                            "bluetooth.silent_stop_seconds=3600"],
                                       mode: .bluez, environment: ["DBUS_SYSTEM_BUS_ADDRESS": bus.address])
        while await fakeControl.stats(Self.address)["fd_open"] != 1, Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(await fakeControl.stats(Self.address)["fd_open"] == 1, "heartd did not subscribe:\n\(daemon.log())")
        // Start-up's one-off wake-ups first: libdispatch's overcommit workers (serial queues: D-Bus, control
        // socket) linger 5 s after their last block and wake once to exit; a deadline timer armed for a wait that
        // ended may fire once, early, and re-arm (DeadlineTimer). Then for 10 s nothing may run: heartd waits for a
        // notification, or its D-Bus reader's 30-s safety poll (30 s after the last message). On libdispatch's pool
        // its manager thread ran 10 times here.
        try await Task.sleep(for: .seconds(12))
        let before = Self.threads(of: daemon.pid)
        try await Task.sleep(for: .seconds(10))
        let after = Self.threads(of: daemon.pid)
        let woke = after.filter { tid, thread in before[tid].map { $0.slices != thread.slices } ?? true }
            .map { "\($0.value.name) (\($0.key)): \(before[$0.key]?.slices ?? 0) → \($0.value.slices) slices" }
        #expect(woke.isEmpty, "threads ran while heartd was idle: \(woke.sorted())")
        #expect(Set(after.keys) == Set(before.keys), "threads came or went: \(before.mapValues(\.name)) → \(after.mapValues(\.name))")
        #expect(!after.values.contains { $0.name.hasSuffix("-qos") }, "a libdispatch worker of a global queue ran")
        #expect(after.values.contains { $0.name == "heartd-task" })
    }
}
