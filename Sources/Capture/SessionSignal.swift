import BlueZ
import SourceEvents

/// What wakes a device session: mirror changes, its alarm, its notify socket, or a stop order.
enum SessionSignal: Sendable {
    /// Something under the device (or its adapter) changed in the mirror.
    case changed
    /// Periodic wake-up for deadlines (silent-stop, resolve timeout, backoff).
    case tick
    /// The AcquireNotify socket was closed by BlueZ.
    case fdClosed
    /// End the session. `bluezAlive`: D-Bus calls still make sense; `disconnect`: drop the link too.
    case stop(reason: DisconnectReason, bluezAlive: Bool, disconnect: Bool)
}

/// Thrown inside a session when a stop order arrives.
struct SessionStopped: Error {
    let reason: DisconnectReason
    let bluezAlive: Bool
    let disconnect: Bool
}

/// A failure inside one connection attempt (leads to a disconnect event and a reconnect).
struct SessionFault: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}
