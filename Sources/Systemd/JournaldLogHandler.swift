import Glibc
import Logging
import Posix

/// A swift-log `LogHandler` that writes structured entries to journald over its native protocol
/// (`/run/systemd/journal/socket`), without libsystemd.
///
/// Fields sent: `MESSAGE`, `PRIORITY` (syslog level from the swift-log level), `SYSLOG_IDENTIFIER`,
/// `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, `SWIFT_LOG_LABEL`, `ERROR` (when the event has one) and
/// every metadata key converted with ``JournalFieldName/sanitize(_:)`` (so `heartd.device` becomes
/// `HEARTD_DEVICE`, and `MESSAGE_ID` passes through).
///
/// Oversized entries: an entry larger than a datagram may carry (`EMSGSIZE`/`ENOBUFS`) is written
/// to a sealed memfd and the descriptor is passed with `SCM_RIGHTS`, exactly as `sd_journal_send`
/// does. Only if that fails too is the message truncated to 16 KiB with the marker
/// `…[truncated N bytes]` and resent. If the socket cannot be reached at all, the entry is written
/// to stderr in ``StderrLogHandler``'s format so nothing is silently lost.
public struct JournaldLogHandler: LogHandler {
    /// The default journald native socket.
    public static let defaultSocketPath = "/run/systemd/journal/socket"
    /// The message size kept when both the datagram and the memfd path fail.
    static let truncatedMessageBytes = 16 * 1024

    private let sender: UnixDatagramSender
    /// The swift-log label (sent as `SWIFT_LOG_LABEL`).
    public let label: String
    /// The `SYSLOG_IDENTIFIER` (defaults to the executable name).
    public let identifier: String

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    /// Creates a handler sending to `socketPath`. Fails only when the path is invalid or no socket
    /// can be created; a missing journal is detected per message and falls back to stderr.
    public init(
        label: String,
        identifier: String = JournaldLogHandler.defaultIdentifier(),
        socketPath: String = JournaldLogHandler.defaultSocketPath,
        metadataProvider: Logger.MetadataProvider? = nil
    ) throws(SystemdError) {
        self.label = label
        self.identifier = identifier
        self.sender = try UnixDatagramSender(address: UnixSocketAddress.checked(socketPath))
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        let merged = mergedMetadata(event.metadata)
        let entry = Self.entry(event: event, metadata: merged, identifier: identifier, label: label)
        if send(entry) { return }
        StderrLogHandler.write(line: StderrLogHandler.format(level: event.level, message: event.message.description, metadata: merged))
    }

    /// Builds the journald entry for one event (pure; exposed for tests).
    public static func entry(event: LogEvent, metadata: Logger.Metadata, identifier: String, label: String) -> JournalEntry {
        var entry = JournalEntry()
        entry.append("MESSAGE", event.message.description)
        entry.append("PRIORITY", String(event.level.syslogPriority))
        entry.append("SYSLOG_IDENTIFIER", identifier)
        entry.append("CODE_FILE", event.file)
        entry.append("CODE_LINE", String(event.line))
        entry.append("CODE_FUNC", event.function)
        entry.append("SWIFT_LOG_LABEL", label)
        if let error = event.error { entry.append("ERROR", String(describing: error)) }
        for key in metadata.keys.sorted() {
            guard let value = metadata[key] else { continue }
            entry.append(JournalFieldName.sanitize(key), value.flatText)
        }
        return entry
    }

    /// The executable's name, like `program_invocation_short_name`.
    public static func defaultIdentifier() -> String {
        let argument0 = CommandLine.arguments.first ?? "heartd"
        return argument0.split(separator: "/").last.map(String.init) ?? "heartd"
    }

    private func mergedMetadata(_ eventMetadata: Logger.Metadata?) -> Logger.Metadata {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let eventMetadata { merged.merge(eventMetadata) { $1 } }
        return merged
    }

    /// Sends via datagram, then memfd, then truncation. Returns false when journald is unreachable.
    private func send(_ entry: JournalEntry) -> Bool {
        let payload = entry.encoded()
        guard let failure = sender.send(payload) else { return true }
        guard failure == EMSGSIZE || failure == ENOBUFS else { return false }
        if let memfd = try? SealedMemfd(contents: payload) {
            defer { close(memfd.fd) }
            if sender.send([], passing: memfd.fd) == nil { return true }
        }
        return sender.send(Self.truncated(entry).encoded()) == nil
    }

    /// Cuts `MESSAGE` to ``truncatedMessageBytes`` and appends a marker; drops other huge fields.
    static func truncated(_ entry: JournalEntry) -> JournalEntry {
        var result = JournalEntry()
        for (name, value) in entry.fields {
            guard value.count > truncatedMessageBytes else { result.fields.append((name, value)); continue }
            let marker = Array("…[truncated \(value.count - truncatedMessageBytes) bytes]".utf8)
            result.fields.append((name, Array(value.prefix(truncatedMessageBytes)) + marker))
        }
        return result
    }
}

/// A memfd holding one journal entry, sealed so journald can trust its contents do not change.
struct SealedMemfd {
    let fd: Int32

    typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32

    /// glibc declares `memfd_create` only under `_GNU_SOURCE`, which Swift's Glibc module does not
    /// define, so it is looked up at run time.
    static let memfdCreate: MemfdCreate? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "memfd_create") else { return nil }
        return unsafeBitCast(symbol, to: MemfdCreate.self)
    }()

    init(contents: [UInt8]) throws(SystemdError) {
        guard let create = Self.memfdCreate else {
            throw SystemdError(.memfdFailed, "memfd_create is not available in this libc")
        }
        let fd = create("journal-entry", 0x0001 | 0x0002)  // MFD_CLOEXEC | MFD_ALLOW_SEALING
        guard fd >= 0 else { throw SystemdError(.memfdFailed, "memfd_create: \(errnoText())") }
        var written = 0
        while written < contents.count {
            let result = contents.withUnsafeBytes { buffer in
                write(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let detail = errnoText()
                close(fd)
                throw SystemdError(.memfdFailed, "write to memfd: \(detail)")
            }
            written += result
        }
        // F_ADD_SEALS = 1033; F_SEAL_SEAL|F_SEAL_SHRINK|F_SEAL_GROW|F_SEAL_WRITE = 0x1|0x2|0x4|0x8
        guard fcntl(fd, 1033, Int32(0x0F)) == 0 else {
            let detail = errnoText()
            close(fd)
            throw SystemdError(.memfdFailed, "sealing memfd: \(detail)")
        }
        self.fd = fd
    }
}
