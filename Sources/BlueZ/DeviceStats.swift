import Foundation

/// Live counters of one device, written by the fast path (D-Bus queue, fd reader) and the session.
final class DeviceStats: @unchecked Sendable {  // every field behind `lock`
    private let lock = NSLock()
    private var s: DeviceCaptureStatus
    private var silencePushedAt = -Double.infinity

    init(address: String, adapter: String) {
        s = DeviceCaptureStatus(address: address, adapter: adapter, state: .waiting, subscribeMode: nil,
                                notifications: 0, malformed: 0, reconnects: 0, silentStopRecoveries: 0,
                                lastNotificationMonotonic: nil, batteryPercent: nil, lastError: nil)
    }

    func update(_ body: (inout DeviceCaptureStatus) -> Void) {
        lock.lock(); defer { lock.unlock() }
        body(&s)
    }

    var snapshot: DeviceCaptureStatus {
        lock.lock(); defer { lock.unlock() }
        return s
    }

    /// Counts one notification (hot path: one lock, a few stores). Returns whether to push the silent-stop
    /// deadline back: at most every half second, which keeps it far ahead of a multi-second timeout while
    /// sparing the timer's lock at high rates.
    func notified(at mono: Double) -> Bool {
        lock.lock()
        s.notifications += 1
        s.lastNotificationMonotonic = mono
        let push = mono - silencePushedAt >= 0.5 || mono < silencePushedAt
        if push { silencePushedAt = mono }
        lock.unlock()
        return push
    }

    /// Counts one dropped value; returns the new count (callers log the 1st and every 100th).
    @discardableResult
    func malformed() -> Int {
        lock.lock(); defer { lock.unlock() }
        s.malformed += 1
        return s.malformed
    }
}

/// Routes GATT values straight from the D-Bus queue (or an fd reader) to the event stream, without
/// a task hop per value: a lock-protected table of subscribed characteristic paths.
final class NotifyRouter: @unchecked Sendable {  // `routes`, `owner` behind `lock`; `emit` is Sendable
    enum Kind: Sendable { case heartRate, battery }
    struct Route: Sendable {
        let address: String
        let kind: Kind
        let stats: DeviceStats
        /// Pushed back with every value (heart rate only).
        var silence: SilenceWatch? = nil
    }

    /// A session's silent-stop deadline: `timeout` after the last value.
    struct SilenceWatch: Sendable {
        let alarms: SessionAlarms
        let session: Int
        let timeout: Double
    }

    private let lock = NSLock()
    private var routes: [String: Route] = [:]
    /// Where every event goes (the stream's continuation, or the caller's handler).
    let emit: @Sendable (CaptureEvent) -> Void

    init(emit: @escaping @Sendable (CaptureEvent) -> Void) { self.emit = emit }

    func add(path: String, _ route: Route) {
        lock.lock(); routes[path] = route; lock.unlock()
    }

    func remove(path: String) {
        lock.lock(); routes[path] = nil; lock.unlock()
    }

    private var owner: String?

    /// The current unique name of org.bluez: values from anyone else are ignored.
    func setOwner(_ name: String?) {
        lock.lock(); owner = name; lock.unlock()
    }

    func route(for path: String, sender: String?) -> Route? {
        lock.lock(); defer { lock.unlock() }
        guard let r = routes[path], sender == owner else { return nil }
        return r
    }

    /// A value for a routed characteristic from a signal: it arrived now.
    func deliver(_ route: Route, bytes: [UInt8]) {
        deliver(route, NotifyDatagram(bytes: bytes, wall: Date(), monotonic: MonotonicClock.now()))
    }

    /// A value for a routed characteristic, with its arrival time.
    func deliver(_ route: Route, _ value: NotifyDatagram) {
        let bytes = value.bytes
        switch route.kind {
        case .heartRate:
            guard !bytes.isEmpty else { route.stats.malformed(); return }
            if route.stats.notified(at: value.monotonic), let w = route.silence {
                w.alarms.silence(session: w.session, at: value.monotonic + w.timeout)
            }
            emit(.notification(address: route.address, bytes: bytes, at: value.wall, monotonic: value.monotonic))
        case .battery:
            guard let pct = GattValues.batteryPercent(bytes) else { route.stats.malformed(); return }
            route.stats.update { $0.batteryPercent = pct }
            emit(.battery(address: route.address, percent: pct))
        }
    }
}
