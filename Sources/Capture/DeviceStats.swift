import BlueZ
import Foundation
import HeartRate
import Posix
import SourceEvents
import Synchronization

/// Live counters of one device, written by the fast path (D-Bus queue, fd reader) and the session.
final class DeviceStats: Sendable {
    private struct State {
        var s: DeviceCaptureStatus
        var silencePushedAt = -Double.infinity
    }
    private let state: Mutex<State>

    init(address: String, adapter: String) {
        state = Mutex(State(s: DeviceCaptureStatus(address: address, adapter: adapter, state: .waiting, subscribeMode: nil,
                                notifications: 0, malformed: 0, reconnects: 0, silentStopRecoveries: 0,
                                lastNotificationMonotonic: nil, batteryPercent: nil, lastError: nil)))
    }

    func update(_ body: (inout DeviceCaptureStatus) -> Void) {
        state.withLock { body(&$0.s) }
    }

    var snapshot: DeviceCaptureStatus { state.withLock { $0.s } }

    /// Counts one notification (hot path: one lock, a few stores). Returns whether to push the silent-stop
    /// deadline back: at most every half second, which keeps it far ahead of a multi-second timeout while
    /// sparing the timer's lock at high rates.
    func notified(at mono: Double) -> Bool {
        state.withLock { st in
            st.s.notifications += 1
            st.s.lastNotificationMonotonic = mono
            let push = mono - st.silencePushedAt >= 0.5 || mono < st.silencePushedAt
            if push { st.silencePushedAt = mono }
            return push
        }
    }

    /// Counts one dropped value; returns the new count (callers log the 1st and every 100th).
    @discardableResult
    func malformed() -> Int {
        state.withLock { st in
            st.s.malformed += 1
            return st.s.malformed
        }
    }
}

/// Routes GATT values straight from the D-Bus queue (or an fd reader) to the event stream, without
/// a task hop per value: a lock-protected table of subscribed characteristic paths.
final class NotifyRouter: Sendable {
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

    private struct Table {
        var routes: [String: Route] = [:]
        /// The current unique name of org.bluez.
        var owner: String?
        /// The last path looked up and its route: one sensor's values come in a row, and the path then is the
        /// same `String` (the D-Bus short cut reuses it), which compares by identity instead of hashing.
        var last: (path: String, route: Route)?
    }
    private let table = Mutex(Table())
    /// Where every event goes (the stream's continuation, or the caller's handler).
    let emit: @Sendable (SourceEvent) -> Void

    init(emit: @escaping @Sendable (SourceEvent) -> Void) { self.emit = emit }

    func add(path: String, _ route: Route) {
        table.withLock { $0.routes[path] = route; $0.last = nil }
    }

    func remove(path: String) {
        table.withLock { $0.routes[path] = nil; $0.last = nil }
    }

    /// The current unique name of org.bluez: values from anyone else are ignored.
    func setOwner(_ name: String?) {
        table.withLock { $0.owner = name }
    }

    func route(for path: String, sender: String?) -> Route? {
        table.withLock { t in
            guard sender == t.owner else { return nil }
            if let last = t.last, last.path == path { return last.route }
            guard let r = t.routes[path] else { return nil }
            t.last = (path, r)
            return r
        }
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
            emit(.notification(address: route.address, bytes: bytes, at: Timestamp(wall: value.wall, monotonic: value.monotonic)))
        case .battery:
            guard let level = try? BatteryLevel(decoding: bytes) else { route.stats.malformed(); return }
            let pct = Int(level.percent)
            route.stats.update { $0.batteryPercent = pct }
            emit(.battery(address: route.address, percent: pct, at: Timestamp(wall: value.wall, monotonic: value.monotonic)))
        }
    }
}
