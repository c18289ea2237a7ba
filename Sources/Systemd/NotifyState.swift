/// One `sd_notify(3)` assignment. Several are sent together, newline-separated, in one datagram.
public enum NotifyState: Sendable, Equatable {
    /// `READY=1`: start-up finished (required for `Type=notify`).
    case ready
    /// `RELOADING=1`: reloading configuration.
    case reloading
    /// `STOPPING=1`: shutdown has begun.
    case stopping
    /// `WATCHDOG=1`: keep-alive ping for `WatchdogSec=`.
    case watchdog
    /// `STATUS=…`: free-form single-line status shown by `systemctl status`.
    case status(String)
    /// `MAINPID=…`: the main process id (when the notifier is not the main process).
    case mainPID(Int32)
    /// `ERRNO=…`: an errno-style failure code.
    case errno(Int32)
    /// Any other `KEY=value` assignment.
    case custom(key: String, value: String)

    /// The wire form, e.g. `STATUS=connected to 2 devices`. Newlines in values are replaced
    /// with spaces because the protocol is newline-separated.
    public var assignment: String {
        switch self {
        case .ready: return "READY=1"
        case .reloading: return "RELOADING=1"
        case .stopping: return "STOPPING=1"
        case .watchdog: return "WATCHDOG=1"
        case .status(let text): return "STATUS=" + Self.singleLine(text)
        case .mainPID(let pid): return "MAINPID=\(pid)"
        case .errno(let code): return "ERRNO=\(code)"
        case .custom(let key, let value): return Self.singleLine(key) + "=" + Self.singleLine(value)
        }
    }

    static func singleLine(_ text: String) -> String {
        String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 })
    }
}
