import BlueZ
import HeartRate
import Logging
import Posix
import SourceEvents

/// Waiting on the session's inbox (with a deadline, for a mirror condition, through a back-off) and watching a
/// subscribed stream until it ends.
extension Runner {
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
}
