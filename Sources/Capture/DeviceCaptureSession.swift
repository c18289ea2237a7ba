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

    init(id: Int, address: String, devicePath: String, adapterPath: String, manager: CaptureManager, connection: DBusConnection,
         policy: CapturePolicy, logger: Logger, router: NotifyRouter, stats: DeviceStats,
         inbox: AsyncStream<SessionSignal>.Continuation, alarms: SessionAlarms) {
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

    // MARK: - waiting

    /// Next inbox item, or a `.tick` at `deadline` (monotonic seconds) at the latest; a stop order is thrown.
    mutating func next(until deadline: Double) async throws {
        s.alarms.wake(session: s.id, at: deadline)
        try await next()
    }

    /// Next inbox item; a stop order is thrown.
    mutating func next() async throws {
        guard let signal = await iterator.next() else {
            throw SessionStopped(reason: .captureStopped, bluezAlive: false, disconnect: false)
        }
        switch signal {
        case .stop(let reason, let alive, let disconnect):
            throw SessionStopped(reason: reason, bluezAlive: alive, disconnect: disconnect)
        case .fdClosed: fdClosed = true
        case .changed, .tick: break
        }
    }

    /// The mirror's view of the device; if the manager already stopped this session, waits for the stop
    /// order (already queued) instead of acting on a mirror that was just emptied.
    mutating func view() async throws -> DeviceView {
        let v = await s.manager.view(devicePath: s.devicePath, session: s.id)
        if v.active { return v }
        while true { try await next() }
    }

    mutating func pause(_ seconds: Double) async throws {
        let deadline = MonotonicClock.now() + seconds
        while MonotonicClock.now() < deadline { try await next(until: deadline) }
    }

    /// Waits until `condition` holds on the device's mirror view.
    mutating func wait(seconds: Double, what: String, _ condition: (DeviceView) throws -> Bool) async throws -> DeviceView {
        let start = MonotonicClock.now()
        let deadline = start + seconds
        var nextResync = start + 3
        var resynced = false
        while true {
            let view = try await view()
            if try condition(view) { return view }
            let now = MonotonicClock.now()
            if now >= deadline {
                // Before giving up, make sure the mirror is not what is behind: reload it once and look again.
                guard !resynced else { throw SessionFault("timed out waiting for \(what)") }
                resynced = true
                await s.manager.resync()
                continue
            }
            // Should the mirror miss the change a session waits for (bluetoothd 5.66 omits Connected=true at
            // times; the mirror infers it from ServicesResolved), reload it every 3 s of waiting, so that
            // costs seconds, not the whole timeout.
            if now >= nextResync {
                nextResync = now + 3
                await s.manager.resync()
                continue
            }
            try await next(until: min(deadline, nextResync))
        }
    }

    // MARK: - establish

    mutating func establish() async throws {
        s.stats.update { $0.state = .connecting }
        fdClosed = false
        fellBack = false
        var view = try await view()
        guard view.exists else { throw SessionFault("device object missing") }
        if !view.connected {
            try await connectWithRetries()
        }
        s.stats.update { $0.state = .resolving }
        // After a bluetoothd restart BlueZ may export the device as Connected but never resolve it, and the
        // kernel drops the stale link ~2 s later: once we have seen Connected, its loss ends the wait at once.
        // (Before that, a false Connected may just be the mirror lagging behind Connect's reply.)
        var sawConnected = false
        view = try await wait(seconds: s.policy.resolveTimeout, what: "ServicesResolved") { v in
            guard v.exists else { throw SessionFault("device removed while connecting") }
            if v.connected { sawConnected = true } else if sawConnected { throw SessionFault("link lost while resolving") }
            return v.connected && v.servicesResolved && v.characteristics[GATTUUID.heartRateMeasurement.uuidString] != nil
        }
        guard let hrm = view.characteristics[GATTUUID.heartRateMeasurement.uuidString] else {
            throw SessionFault("no heart rate measurement characteristic")
        }
        view = try await settleDeviceInformation(view)
        let info = await readInfo(view)
        s.stats.update { $0.state = .subscribing }
        s.router.emit(.connected(address: s.address, device: info, at: .now()))
        connectedEmitted = true
        await readBattery(view)
        try await subscribe(hrm.path, flags: hrm.flags)
        s.stats.update { $0.state = .streaming }
    }

    /// After a bluetoothd restart the heart-rate service may be exported before the Device Information service
    /// (seen in the lab: ServicesResolved, HRM there, DIS objects not yet): wait for the latter — until its first
    /// characteristic is there and then 0.2 s pass without another object — for up to 2 s, so the device's
    /// metadata is not read from a half-exported database. Then go on with what is there.
    mutating func settleDeviceInformation(_ view: DeviceView) async throws -> DeviceView {
        guard view.deviceInformationPending else { return view }
        let start = MonotonicClock.now()
        let deadline = start + 2, quiet = 0.2
        var latest = view
        var lastChange = start
        while latest.connected, MonotonicClock.now() < deadline {
            if !latest.deviceInformationPending && MonotonicClock.now() >= lastChange + quiet { break }
            try await next(until: min(deadline, latest.deviceInformationPending ? deadline : lastChange + quiet))
            let next = try await self.view()
            if next.characteristics.count != latest.characteristics.count { lastChange = MonotonicClock.now() }
            latest = next
        }
        if latest.deviceInformationPending {
            s.logger.info("Device Information service offered but not exported; device metadata may be incomplete")
        }
        return latest
    }

    mutating func connectWithRetries() async throws {
        var attempt = 0
        while true {
            do {
                // Ours from the call on: a Connect that times out on our side may still bring the link up in
                // bluetoothd, and a failed attempt must release it (see `run`).
                weConnected = true
                try await device.connect(timeout: .milliseconds(Int(s.policy.connectTimeout * 1000)))
                return
            } catch let e as BlueZError where e.kind == .alreadyConnected {
                weConnected = false  // someone else's link
                return
            } catch let e as BlueZError where (e.kind == .leConnectionAbortByLocal || e.kind == .inProgress) && attempt < 3 {
                attempt += 1
                s.logger.info("Connect failed, retrying", metadata: ["error": .string("\(e)"), "attempt": .stringConvertible(attempt)])
                try await pause(0.25 * Double(attempt))
            }
        }
    }

    mutating func readInfo(_ view: DeviceView) async -> DeviceInfo {
        var info = DeviceInfo(name: view.name, localIdentifier: s.address)
        func read(_ uuid: GATTUUID) async -> [UInt8]? {
            guard let c = view.characteristics[uuid.uuidString], c.flags.contains("read") else { return nil }
            do {
                return try await GattCharacteristic(connection: s.connection, path: c.path).readValue(timeout: .seconds(5))
            } catch {
                s.logger.debug("ReadValue failed", metadata: ["uuid": .string(uuid.description), "error": .string("\(error)")])
                return nil
            }
        }
        func string(_ field: DeviceInformationField) async -> String? {
            guard let bytes = await read(field.uuid) else { return nil }
            let text = DeviceInformationField.decodeString(bytes)
            return text.isEmpty ? nil : text
        }
        info.manufacturer = await string(.manufacturerName)
        info.model = await string(.modelNumber)
        info.hardwareVersion = await string(.hardwareRevision)
        info.firmwareVersion = await string(.firmwareRevision)
        info.softwareVersion = await string(.softwareRevision)
        if let serial = await string(.serialNumber) {
            info.metadata[MetadataKey.serialNumber] = serial
        }
        // Reserved values (7–255) are not HealthKit sensor locations: left out, as before.
        if let bytes = await read(.bodySensorLocation), let location = try? BodySensorLocation(decoding: bytes),
           location.rawValue <= BodySensorLocation.foot.rawValue {
            info.metadata[MetadataKey.bodySensorLocation] = String(location.rawValue)
        }
        if let appearance = view.appearance {
            info.metadata[BlueZMetadataKey.appearance] = AppearanceClass(appearance: appearance).rawValue
            info.metadata[BlueZMetadataKey.appearanceValue] = String(appearance)
        }
        info.metadata[BlueZMetadataKey.adapter] = s.adapterPath.lastPathComponent
        return info
    }

    mutating func readBattery(_ view: DeviceView) async {
        guard let c = view.characteristics[GATTUUID.batteryLevel.uuidString] else { return }
        let char = GattCharacteristic(connection: s.connection, path: c.path)
        let route = NotifyRouter.Route(address: s.address, kind: .battery, stats: s.stats)
        if c.flags.contains("read"), let bytes = try? await char.readValue(timeout: .seconds(5)) {
            s.router.deliver(route, bytes: bytes)
        }
        if c.flags.contains("notify") {
            s.router.add(path: c.path, route)
            batteryPath = c.path
            do { try await char.startNotify() } catch {
                s.logger.debug("battery StartNotify failed", metadata: ["error": .string("\(error)")])
            }
        }
    }

    // MARK: - watch

    /// Returns the reason the stream ended. Silence is noticed by the silent-stop alarm, which every value
    /// pushes back (`NotifyRouter.deliver`): while values flow, nothing here wakes.
    mutating func monitor() async throws -> DisconnectReason {
        var lastSeen = s.stats.snapshot.lastNotificationMonotonic ?? MonotonicClock.now()
        var progressAt = MonotonicClock.now()
        var recovered = false
        defer { s.alarms.silence(session: s.id, at: nil) }
        while true {
            s.alarms.silence(session: s.id, at: max(progressAt, s.stats.snapshot.lastNotificationMonotonic ?? 0)
                             + s.policy.silentStopTimeout)
            try await next()
            let view = try await view()
            if !view.exists { return .deviceRemoved }
            if !view.connected { return .linkLost }
            if let hrmPath, view.characteristics[GATTUUID.heartRateMeasurement.uuidString]?.path != hrmPath {
                s.stats.malformed()
                s.logger.warning("heart rate characteristic disappeared", metadata: ["path": .string(hrmPath)])
                return .characteristicRemoved
            }
            if fdClosed && mode == .acquireNotify { return .notifySocketClosed }
            let now = MonotonicClock.now()
            if let last = s.stats.snapshot.lastNotificationMonotonic, last != lastSeen {
                lastSeen = last
                progressAt = max(progressAt, min(last, now))
                recovered = false
                continue
            }
            guard now - progressAt >= s.policy.silentStopTimeout else { continue }
            if !recovered {
                recovered = true
                progressAt = now
                s.stats.update { $0.silentStopRecoveries += 1; $0.state = .recovering }
                s.logger.warning("no notification within the silent-stop timeout; re-subscribing")
                try await resubscribe()
                s.stats.update { $0.state = .streaming }
            } else {
                s.logger.warning("still silent after re-subscribing; disconnecting")
                try? await device.disconnect()
                return .silentStop
            }
        }
    }

    mutating func resubscribe() async throws {
        guard let path = hrmPath else { return }
        let flags = try await view().characteristics[GATTUUID.heartRateMeasurement.uuidString]?.flags ?? []
        await unsubscribe(callBluez: true)
        fdClosed = false
        try await subscribe(path, flags: flags)
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
