import Glibc
import Posix

/// Talks to the service manager with the `sd_notify(3)` datagram protocol, without libsystemd.
///
/// Reads `$NOTIFY_SOCKET` (a path or an abstract "@name"), `$WATCHDOG_USEC` and `$WATCHDOG_PID`
/// once at creation. When `$NOTIFY_SOCKET` is unset (not run by systemd, or `Type=simple`),
/// every call is a no-op, so the daemon can call it unconditionally.
public struct SystemdNotifier: Sendable {
    private let sender: UnixDatagramSender?

    /// The notify socket address, or `nil` when notifications are disabled.
    public var socketAddress: UnixSocketAddress? { sender?.address }

    /// How often the watchdog must be pinged (systemd's recommendation: at half of `WatchdogSec=`
    /// — callers should ping at `watchdogInterval / 2`), or `nil` when no watchdog is configured
    /// for this process (unset, zero, unparsable, or `$WATCHDOG_PID` names another process).
    public let watchdogInterval: Duration?

    /// Whether notifications will actually be sent.
    public var isEnabled: Bool { sender != nil }

    /// Creates a notifier from `environment` (defaults to the process environment).
    /// `pid` is compared against `$WATCHDOG_PID`; defaults to `getpid()`.
    /// Throws only when `$NOTIFY_SOCKET` is set but unusable.
    public init(environment: [String: String] = ProcessEnvironment.current(), pid: Int32 = getpid()) throws(SystemdError) {
        if let path = environment["NOTIFY_SOCKET"], !path.isEmpty {
            sender = try UnixDatagramSender(address: UnixSocketAddress.checked(path))
        } else {
            sender = nil
        }
        watchdogInterval = Self.watchdogInterval(environment: environment, pid: pid)
    }

    /// Parses `$WATCHDOG_USEC`/`$WATCHDOG_PID` like `sd_watchdog_enabled(3)`.
    public static func watchdogInterval(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let pidText = environment["WATCHDOG_PID"] {
            guard let watchdogPID = Int32(pidText), watchdogPID == pid else { return nil }
        }
        return .microseconds(Int64(clamping: usec))
    }

    /// Sends the given assignments in one datagram. No-op when disabled.
    public func notify(_ states: [NotifyState]) throws(SystemdError) {
        guard let sender, !states.isEmpty else { return }
        let text = states.map(\.assignment).joined(separator: "\n")
        if let code = sender.send(Array(text.utf8)) {
            throw SystemdError(.sendFailed, "sd_notify to \(sender.address): \(errnoText(code))")
        }
    }

    /// Sends one assignment. No-op when disabled.
    public func notify(_ state: NotifyState) throws(SystemdError) {
        try notify([state])
    }

    /// `READY=1` with an optional `STATUS=`.
    public func ready(status: String? = nil) throws(SystemdError) {
        try notify([.ready] + (status.map { [.status($0)] } ?? []))
    }

    /// `STATUS=text`.
    public func status(_ text: String) throws(SystemdError) { try notify(.status(text)) }

    /// `STOPPING=1` with an optional `STATUS=`.
    public func stopping(status: String? = nil) throws(SystemdError) {
        try notify([.stopping] + (status.map { [.status($0)] } ?? []))
    }

    /// `WATCHDOG=1`.
    public func watchdog() throws(SystemdError) { try notify(.watchdog) }

    /// `MAINPID=pid`.
    public func mainPID(_ pid: Int32) throws(SystemdError) { try notify(.mainPID(pid)) }
}

/// Reads the process environment into a dictionary (for injection into notifier/bootstrap).
public enum ProcessEnvironment {
    /// The current process environment.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }
}
