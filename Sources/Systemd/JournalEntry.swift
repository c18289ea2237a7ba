import Logging

/// One journald entry as an ordered list of fields, and its native-protocol encoding.
///
/// Pure value logic (no I/O) so that it can be tested without a socket.
public struct JournalEntry: Sendable, Equatable {
    /// Fields in sending order. Names must already be valid journald field names.
    public var fields: [(name: String, value: [UInt8])]

    public init(fields: [(name: String, value: [UInt8])] = []) { self.fields = fields }

    /// Appends a field with a UTF-8 string value.
    public mutating func append(_ name: String, _ value: String) {
        fields.append((name, Array(value.utf8)))
    }

    public static func == (lhs: JournalEntry, rhs: JournalEntry) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// The value of the first field named `name`, decoded as UTF-8.
    public func value(of name: String) -> String? {
        fields.first { $0.name == name }.map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// journald's native protocol: `NAME=value\n` for values without a newline, otherwise the
    /// binary-safe form `NAME\n` + value length (UInt64 little-endian) + value + `\n`.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(fields.reduce(0) { $0 + $1.name.utf8.count + $1.value.count + 2 })
        for (name, value) in fields {
            out.append(contentsOf: name.utf8)
            if value.contains(UInt8(ascii: "\n")) {
                out.append(UInt8(ascii: "\n"))
                var length = UInt64(value.count).littleEndian
                withUnsafeBytes(of: &length) { out.append(contentsOf: $0) }
                out.append(contentsOf: value)
            } else {
                out.append(UInt8(ascii: "="))
                out.append(contentsOf: value)
            }
            out.append(UInt8(ascii: "\n"))
        }
        return out
    }

    /// Parses the native protocol (both encodings); `nil` when malformed. Used by tests and tools.
    public static func decode(_ bytes: [UInt8]) -> JournalEntry? {
        var entry = JournalEntry()
        var index = 0
        let newline = UInt8(ascii: "\n"), equals = UInt8(ascii: "=")
        while index < bytes.count {
            guard let end = bytes[index...].firstIndex(where: { $0 == newline || $0 == equals }) else { return nil }
            let name = String(decoding: bytes[index..<end], as: UTF8.self)
            if bytes[end] == equals {
                guard let lineEnd = bytes[end...].firstIndex(of: newline) else { return nil }
                entry.fields.append((name, Array(bytes[(end + 1)..<lineEnd])))
                index = lineEnd + 1
            } else {
                let lengthStart = end + 1
                guard lengthStart + 8 <= bytes.count else { return nil }
                var length: UInt64 = 0
                for offset in 0..<8 { length |= UInt64(bytes[lengthStart + offset]) << (8 * UInt64(offset)) }
                let valueStart = lengthStart + 8
                guard length <= UInt64(bytes.count - valueStart), valueStart + Int(length) < bytes.count,
                      bytes[valueStart + Int(length)] == newline else { return nil }
                entry.fields.append((name, Array(bytes[valueStart..<(valueStart + Int(length))])))
                index = valueStart + Int(length) + 1
            }
        }
        return entry
    }
}

/// Turns arbitrary metadata keys into valid journald field names.
public enum JournalFieldName {
    /// Field names journald reserves for the handler itself; metadata keys mapping onto them get a
    /// `META_` prefix so they cannot overwrite the message, priority or code location.
    static let reserved: Set<String> = [
        "MESSAGE", "PRIORITY", "SYSLOG_IDENTIFIER", "CODE_FILE", "CODE_LINE", "CODE_FUNC",
        "SWIFT_LOG_LABEL", "SWIFT_LOG_SOURCE", "ERROR",
    ]

    /// Uppercases, replaces every character outside `A-Z0-9_` with `_`, drops leading underscores
    /// (those name trusted fields journald sets itself), prefixes names starting with a digit with
    /// `F_`, and caps the length at 64. `heartd.device` → `HEARTD_DEVICE`; `MESSAGE_ID` passes through.
    public static func sanitize(_ key: String) -> String {
        var name = String(key.uppercased().map { ch -> Character in
            (ch.isASCII && (ch.isLetter || ch.isNumber)) || ch == "_" ? ch : "_"
        })
        while name.hasPrefix("_") { name.removeFirst() }
        if name.isEmpty { name = "FIELD" }
        if let first = name.first, first.isNumber { name = "F_" + name }
        if reserved.contains(name) { name = "META_" + name }
        return String(name.prefix(64))
    }
}

extension Logger.Level {
    /// syslog priority (0 emerg … 7 debug) used for journald `PRIORITY=` and `<N>` stderr prefixes.
    public var syslogPriority: Int {
        switch self {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }
}

extension Logger.MetadataValue {
    /// A flat text rendering for journald fields and `key=value` lines.
    var flatText: String {
        switch self {
        case .string(let text): return text
        case .stringConvertible(let value): return value.description
        case .array, .dictionary: return description
        }
    }
}
