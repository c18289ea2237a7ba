/// A problem in heartd.toml or in a command-line override, with the key and line it concerns.
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable error codes.
    public enum Code: String, Sendable, Equatable {
        /// The file could not be read.
        case unreadable = "unreadable"
        /// Not valid (subset) TOML: bad string, bad number, missing `=`, unterminated array…
        case syntax = "syntax"
        /// A `[section]` heartd does not know.
        case unknownSection = "unknown-section"
        /// A key heartd does not know in its section.
        case unknownKey = "unknown-key"
        /// A key or section given twice.
        case duplicate = "duplicate"
        /// A value of the wrong TOML type (e.g. a string where a number is needed).
        case wrongType = "wrong-type"
        /// A value of the right type outside the allowed range or set.
        case outOfRange = "out-of-range"
        /// A command-line override not of the form `section.key=value`.
        case invalidOverride = "invalid-override"
    }

    public let code: Code
    /// `section.key` the error concerns, when there is one.
    public let key: String?
    /// 1-based line in the file; `nil` for overrides and file-level errors.
    public let line: Int?
    /// Where the setting came from ("heartd.toml" path, or "override").
    public let source: String
    public let detail: String

    public init(_ code: Code, key: String? = nil, line: Int? = nil, source: String = "heartd.toml", _ detail: String) {
        self.code = code
        self.key = key
        self.line = line
        self.source = source
        self.detail = detail
    }

    /// `path:line: key: detail`, like a compiler diagnostic.
    public var description: String {
        var text = source
        if let line { text += ":\(line)" }
        text += ": "
        if let key { text += "\(key): " }
        return text + detail
    }
}
