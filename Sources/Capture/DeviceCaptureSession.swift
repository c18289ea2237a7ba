import BlueZ
import DBus
import Dispatch
import Foundation
import Posix
import HealthModel
import HeartRate
import Logging
import SourceEvents
import Timers

/// One device's capture loop: connect → resolve → read info → subscribe → watch → (fault) → back off → again.
///
/// Lives inside one task (not shared), so its mutable state needs no lock. It sleeps only on its inbox,
/// which the manager (mirror changes, stop), its notify socket and `SessionAlarms` (a wait's timeout, the end of
/// a back-off, the silent-stop deadline the notify path pushes back with every value) feed. No periodic tick:
/// a wake-up costs more than a notification.
final class DeviceCaptureSession: Sendable {
    let id: Int
    let address: String
    let devicePath: String
    let adapterPath: String
    let manager: CaptureManager
    let connection: DBusConnection
    let policy: CapturePolicy
    let logger: Logger
    let router: NotifyRouter
    let stats: DeviceStats
    let inbox: AsyncStream<SessionSignal>.Continuation
    let alarms: SessionAlarms
    let poller: AcquiredNotifyPoller

    init(id: Int, address: String, devicePath: String, adapterPath: String, manager: CaptureManager, connection: DBusConnection,
         policy: CapturePolicy, logger: Logger, router: NotifyRouter, stats: DeviceStats,
         inbox: AsyncStream<SessionSignal>.Continuation, alarms: SessionAlarms, poller: AcquiredNotifyPoller) {
        self.id = id
        self.address = address
        self.devicePath = devicePath
        self.adapterPath = adapterPath
        self.manager = manager
        self.connection = connection
        self.policy = policy
        self.logger = logger
        self.router = router
        self.stats = stats
        self.inbox = inbox
        self.alarms = alarms
        self.poller = poller
    }

    func run(_ stream: AsyncStream<SessionSignal>) async {
        alarms.register(session: id, inbox: inbox)
        defer { alarms.unregister(session: id) }
        var runner = Runner(session: self, iterator: stream.makeAsyncIterator())
        await runner.loop()
        stats.update { $0.state = .stopped }
    }
}

/// The mutable part of a session, owned by its task.
struct Runner {
    let s: DeviceCaptureSession
    var iterator: AsyncStream<SessionSignal>.Iterator
    var connectedEmitted = false
    var hrmPath: String?
    var batteryPath: String?
    var reader: AcquiredNotifyReader?
    var mode: SubscribeMode = .startNotify
    /// This connection fell back from AcquireNotify to StartNotify (logged and counted once per connection).
    var fellBack = false
    var fdClosed = false
    var weConnected = false

    init(session: DeviceCaptureSession, iterator: AsyncStream<SessionSignal>.Iterator) {
        s = session
        self.iterator = iterator
    }

    var device: Device { Device(connection: s.connection, path: s.devicePath) }

    mutating func loop() async {
        var backoff = Backoff(initial: s.policy.backoffInitial, maximum: s.policy.backoffMaximum,
                              factor: s.policy.backoffFactor, jitter: s.policy.backoffJitter)
        while true {
            let before = s.stats.snapshot.notifications
            let reason: DisconnectReason, failure: BlueZError?
            var attemptError = false
            do {
                try await establish()
                (reason, failure) = (try await monitor(), nil)
            } catch let stop as SessionStopped {
                await teardown(reason: stop.reason, callBluez: stop.bluezAlive, disconnect: stop.disconnect)
                return
            } catch where Task.isCancelled {
                // the manager cancelled us after the stop grace period: calls now fail at once
                await teardown(reason: .captureStopped, callBluez: false, disconnect: false)
                return
            } catch {
                (reason, failure) = (.attemptFailed("\(error)"), error as? BlueZError)
                attemptError = true
                s.stats.update { $0.lastError = reason.description }
                s.logger.warning("capture attempt failed", metadata: ["error": .string(reason.description)])
            }
            // A failed attempt releases the link it asked for (policy permitting): left up — connected but never
            // resolved — it held the sensor and a controller slot, so the retry, here or on another adapter, could
            // not get through (lab, two centrals: ServicesResolved timeouts for ever).
            await teardown(reason: reason, callBluez: true, disconnect: attemptError && s.policy.disconnectOnStop)
            if s.stats.snapshot.notifications > before { backoff.reset() }
            let full = await AdapterFull.check(failure, session: s)  // its own back-off; may move the device
            s.stats.update { $0.state = full == nil ? .backoff : .adapterFull; $0.reconnects += 1 }
            let delay = max(backoff.next(), full ?? 0)
            if full == nil, attemptError, s.stats.snapshot.notifications == before {
                // Nothing came through this adapter: another that sees the device may do better (AdapterPlanner rule 4).
                await s.manager.attemptFailed(address: s.address, adapterPath: s.adapterPath, for: max(delay, 10))
            }
            s.logger.info("reconnecting after backoff", metadata: ["reason": .string(reason.description), "delay_s": .stringConvertible(delay)])
            do { try await pause(delay) } catch let stop as SessionStopped {
                await teardown(reason: stop.reason, callBluez: stop.bluezAlive, disconnect: stop.disconnect)
                return
            } catch {}
        }
    }

    mutating func teardown(reason: DisconnectReason, callBluez: Bool, disconnect: Bool) async {
        await unsubscribe(callBluez: callBluez && reason != .linkLost)
        if let batteryPath {
            s.router.remove(path: batteryPath)
            self.batteryPath = nil
        }
        hrmPath = nil
        if disconnect && weConnected && callBluez {
            try? await device.disconnect(timeout: .seconds(3))
        }
        weConnected = false
        if connectedEmitted {
            connectedEmitted = false
            s.router.emit(.disconnected(address: s.address, reason: reason, at: .now()))
        }
    }
}
