import Glibc
import Logging

/// Where log output goes.
public enum LogTarget: String, Sendable, CaseIterable {
    /// journald when running under systemd with a reachable journal, else stderr.
    case auto
    /// Always journald's native socket.
    case journal
    /// Always stderr with `<N>` priority prefixes.
    case stderr
}

/// Picks a `LogHandler` for the daemon: journald's native protocol when under systemd, else stderr.
public struct LoggingBootstrap: Sendable {
    public let target: LogTarget
    public let level: Logger.Level
    public let journalSocketPath: String
    public let environment: [String: String]

    public init(
        target: LogTarget = .auto,
        level: Logger.Level = .info,
        journalSocketPath: String = JournaldLogHandler.defaultSocketPath,
        environment: [String: String] = ProcessEnvironment.current()
    ) {
        self.target = target
        self.level = level
        self.journalSocketPath = journalSocketPath
        self.environment = environment
    }

    /// The target `auto` resolves to: journal when `$JOURNAL_STREAM` names our stderr (systemd
    /// connected it to the journal), or when `$INVOCATION_ID` is set (we run as a systemd unit)
    /// and the journal socket exists; otherwise stderr.
    public var resolvedTarget: LogTarget {
        switch target {
        case .journal, .stderr: return target
        case .auto:
            if let stream = environment["JOURNAL_STREAM"], Self.stderrMatches(journalStream: stream) { return .journal }
            if environment["INVOCATION_ID"] != nil, Self.isSocket(journalSocketPath) { return .journal }
            return .stderr
        }
    }

    /// A handler for `label` (suitable for `LoggingSystem.bootstrap { bootstrap.handler(label: $0) }`).
    public func handler(label: String) -> any LogHandler {
        if resolvedTarget == .journal, var journal = try? JournaldLogHandler(label: label, socketPath: journalSocketPath) {
            journal.logLevel = level
            return journal
        }
        var stderrHandler = StderrLogHandler(label: label)
        stderrHandler.logLevel = level
        return stderrHandler
    }

    /// A handler chosen with the defaults (`auto` target, `info` level, process environment).
    public static func handler(label: String) -> any LogHandler {
        LoggingBootstrap().handler(label: label)
    }

    /// `$JOURNAL_STREAM` is "device:inode" of the stream systemd connected; it only counts when it
    /// is still our stderr (a child may inherit the variable with a different stderr).
    static func stderrMatches(journalStream: String) -> Bool {
        let parts = journalStream.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(STDERR_FILENO, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }

    static func isSocket(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFSOCK
    }
}
