import BlueZ
import Capture
import DBus
import Foundation
import HealthModel
import HeartStore
import HeartdKit
import Ingest
import Logging
import Posix
import SourceEvents
import Synchronization
import TestBus
import Testing

/// A store that stalls like an SD card: while `stalling`, every write (finished series, checkpoint append, device)
/// blocks for `seconds` before it reaches the real store.
final class StallingSink: SeriesSink {
    let inner: any SeriesSink
    let seconds: Double
    let stalling = Mutex(true)
    let stalledWrites = Atomic<Int>(0)
    let saved = Mutex<[Sample]>([])

    init(_ inner: any SeriesSink, seconds: Double) {
        self.inner = inner
        self.seconds = seconds
    }

    func stall() {
        guard stalling.withLock({ $0 }) else { return }
        stalledWrites.add(1, ordering: .relaxed)
        Thread.sleep(forTimeInterval: seconds)
    }

    func save(_ samples: [Sample], closingCheckpoints: [UUID]) throws {
        stall()
        try inner.save(samples, closingCheckpoints: closingCheckpoints)
        saved.withLock { $0 += samples }
    }

    func writeCheckpoints(_ open: [SeriesCheckpoint]) throws {
        stall()
        try inner.writeCheckpoints(open)
    }

    func upsertDevice(_ device: DeviceInfo) throws {
        stall()
        try inner.upsertDevice(device)
    }
}

/// The disk never stalls capture: two sensors stream through the fake BlueZ into the daemon's real pipeline and
/// store (SQLite file, open-series journal) while every store write stalls for 3 s.
@Suite(.serialized) struct StoreStallTests {
    static let addresses = ["A0:9E:1A:7C:00:01", "A0:9E:1A:7C:00:02"]
    static let fakeScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("BlueZTests/Fixtures/fake_bluez.py").path

    /// Per notification: how long after its arrival stamp the pipeline took it, and how long handling took.
    struct Timing {
        var maxLateness = 0.0
        var maxHandling = 0.0
        var notifications = 0
    }

    @Test func aStallingStoreDelaysNoNotificationAndLosesNothing() async throws {
        let bus = try PrivateBus()
        defer { bus.kill() }
        let fake = try Helper(script: try String(contentsOfFile: Self.fakeScript, encoding: .utf8), name: "fake_bluez.py",
                              in: bus.dir, arguments: ["--address", bus.address, "--devices",
                                                       Self.addresses.joined(separator: ","), "--known"])
        defer { kill(fake.process.processIdentifier, SIGKILL) }
        var logger = Logger(label: "stall-test")
        logger.logLevel = .error
        let control = try await DBusConnection.connect(address: bus.address, logger: logger)
        defer { control.close() }
        // The fake (Python, dbus-python, GLib) takes seconds to start on a loaded 2-core machine.
        let deadline = Date().addingTimeInterval(30)
        while try await control.nameOwner("org.bluez") == nil {
            guard Date() < deadline else { throw TestFailure("fake bluez did not start within 30 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
        let dir = try TestDirectory("store-stall")
        defer { dir.remove() }
        let database = try HeartDatabase(path: dir.url.appendingPathComponent("heartd.sqlite").path)
        let stalling = StallingSink(StoreSink(database: database, checkpoints: try CheckpointWriter(database: database),
                                              logger: logger), seconds: 3)
        let store = BackgroundSink(stalling, memoryBufferBeats: 10_000, logger: logger)
        store.start()
        let pipeline = IngestPipeline(settings: IngestSettings(checkpointInterval: 1), sink: store, logger: logger)
        let timing = Mutex(Timing())
        let client = try await DBusConnection.connect(address: bus.address, logger: logger)
        defer { client.close() }
        // As the daemon wires it: events go into the pipeline on the thread that read them (the D-Bus reader:
        // StartNotify, whose reader also serves every other D-Bus message).
        let capture = BlueZCapture(connection: client, policy: CapturePolicy(allowList: Set(Self.addresses), subscribeMode: .startNotify),
                                   logger: logger, onEvent: { event in
            let start = MonotonicClock.now()
            pipeline.handleNow(event)
            guard case .notification(_, _, let at) = event else { return }
            let end = MonotonicClock.now()
            timing.withLock { t in
                t.notifications += 1
                t.maxLateness = max(t.maxLateness, start - at.monotonic)
                t.maxHandling = max(t.maxHandling, end - start)
            }
        })
        let run = Task { try await capture.run() }
        let fakeControl = FakeBlueZControl(connection: control)
        func ctl(_ member: String, _ args: [DBusValue]) async throws -> [DBusValue] { try await fakeControl.call(member, args) }
        func subscribed(_ address: String) async -> Bool { await fakeControl.subscribed(address) }
        for address in Self.addresses {
            while !(await subscribed(address)), Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            #expect(await subscribed(address), "capture did not subscribe to \(address)")
        }
        // 16 notifications per sensor, one every 0.5 s, each with one RR of 0.5 s (512/1024 s): 8 s of heart beats,
        // during which the store's writes stall 3 s each (checkpoints every second, the devices at connect).
        let count = 16
        for i in 0..<count {
            for address in Self.addresses {
                _ = try await ctl("Notify", [.string(address), .bytes([0x10, 120, 0x00, 0x02])])
            }
            if i < count - 1 { try await Task.sleep(for: .milliseconds(500)) }
        }
        let arrived = Date().addingTimeInterval(5)
        while timing.withLock({ $0.notifications }) < 2 * count, Date() < arrived {
            try await Task.sleep(for: .milliseconds(20))
        }
        let stalledDuringCapture = stalling.stalledWrites.load(ordering: .relaxed)
        let status = pipeline.statusNow()
        await pipeline.finishAll(reason: .shutdown)
        stalling.stalling.withLock { $0 = false }
        #expect(await store.drain(timeout: 30), "the store writer did not finish")
        run.cancel()
        _ = await run.result

        let t = timing.withLock { $0 }
        #expect(stalledDuringCapture >= 2, "the store never stalled while capture ran: the test proves nothing")
        #expect(t.notifications == 2 * count, "notifications handled: \(t.notifications)")
        #expect(t.maxHandling < 0.5, "a notification waited \(t.maxHandling) s for the store")
        #expect(t.maxLateness < 1.0, "a notification was handled \(t.maxLateness) s after it arrived")
        for device in status {
            #expect(device.counters.gapsByRule == [GapReason.connection.rawValue: 1], "false gap: \(device.counters.gapsByRule)")
        }
        // Nothing lost: per sensor one series with the implied predecessor plus one beat per RR, in the SQLite file.
        let stored = try database.heartbeatSeries(from: .distantPast, to: .distantFuture)
        #expect(stored.count == 2)
        for series in stored {
            #expect(series.beats.count == count + 1, "beats stored: \(series.beats.count)")
            #expect(series.beats.filter(\.precededByGap).count == 1)
        }
        #expect(store.status.failures == 0 && store.status.queuedBeats == 0)
    }
}
