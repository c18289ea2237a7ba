import SourceEvents

/// A replay line that could not be used: reported with its line number and skipped; the rest of the input is
/// still ingested.
public struct ReplayIssue: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        /// Not JSON, not an object, or `t`/`device` missing or of the wrong type.
        case invalidRecord = "invalid-record"
        /// The line is not valid UTF-8.
        case invalidUTF8 = "invalid-utf8"
        /// Longer than `ReplayStream.maxLineBytes`; skipped without being held in memory.
        case lineTooLong = "line-too-long"
        /// `t` is not a finite number.
        case invalidTime = "invalid-time"
        /// `device` is empty.
        case emptyDevice = "empty-device"
        /// `hex` is not an even number of hex digits.
        case invalidHex = "invalid-hex"
        /// Neither `hex` nor `event`.
        case missingPayload = "missing-payload"
        /// Both `hex` and `event`.
        case ambiguousPayload = "ambiguous-payload"
        /// An `event` this version does not know.
        case unknownEvent = "unknown-event"
        /// A `battery` event without `percent` 0…100.
        case invalidBattery = "invalid-battery"
    }

    /// 1-based line number.
    public var line: Int
    public var code: Code
    /// What is wrong, for a person.
    public var reason: String

    public init(line: Int, code: Code, reason: String) {
        self.line = line
        self.code = code
        self.reason = reason
    }

    public var description: String { "line \(line): \(reason)" }
}
