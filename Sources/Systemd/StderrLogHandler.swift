import Glibc
import Logging

/// A swift-log `LogHandler` writing one line per event to stderr, prefixed with the sd-daemon
/// priority marker (`<6>connected heartd.device=AA:BB…`), so journald (via `StandardError=journal`)
/// or a terminal both read it well.
///
/// Format: `<N>message key=value key2="value with spaces"`, metadata keys sorted, newlines in
/// the message and values escaped as `\n`. Each line is written with one `write(2)` so concurrent
/// lines do not interleave.
public struct StderrLogHandler: LogHandler {
    /// The swift-log label (not printed; kept for parity with other handlers).
    public let label: String
    /// Where lines go (`STDERR_FILENO` by default; tests pass a pipe).
    public let fileDescriptor: Int32

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    public init(label: String, fileDescriptor: Int32 = STDERR_FILENO, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.fileDescriptor = fileDescriptor
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let eventMetadata = event.metadata { merged.merge(eventMetadata) { $1 } }
        if let error = event.error { merged["error"] = .string(String(describing: error)) }
        Self.write(line: Self.format(level: event.level, message: event.message.description, metadata: merged), to: fileDescriptor)
    }

    /// Formats one line, including the trailing newline (pure; exposed for tests).
    public static func format(level: Logger.Level, message: String, metadata: Logger.Metadata) -> String {
        var line = "<\(level.syslogPriority)>" + escape(message)
        for key in metadata.keys.sorted() {
            guard let value = metadata[key] else { continue }
            line += " " + key + "=" + quoteIfNeeded(escape(value.flatText))
        }
        return line + "\n"
    }

    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "\n" || $0 == "\r" }) else { return text }
        return text.replacingNewlines()
    }

    static func quoteIfNeeded(_ text: String) -> String {
        guard text.isEmpty || text.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) else { return text }
        return "\"" + text.replacingQuotes() + "\""
    }

    /// Writes `line` to `fd` with a single `write(2)` (retrying on EINTR and short writes).
    static func write(line: String, to fd: Int32 = STDERR_FILENO) {
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if result < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += result
        }
    }
}

extension String {
    fileprivate func replacingNewlines() -> String {
        var out = ""
        for ch in self {
            switch ch {
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\r\n": out += "\\r\\n"
            default: out.append(ch)
            }
        }
        return out
    }

    fileprivate func replacingQuotes() -> String {
        var out = ""
        for ch in self {
            if ch == "\"" || ch == "\\" { out.append("\\") }
            out.append(ch)
        }
        return out
    }
}
