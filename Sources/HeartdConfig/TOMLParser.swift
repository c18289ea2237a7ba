/// A parser for the TOML subset heartd.toml uses:
/// `[section]` headers (bare names), `key = value` with bare keys, basic strings `"…"` with escapes
/// (`\" \\ \n \t \r \b \f \uXXXX \UXXXXXXXX`), literal strings `'…'`, integers (sign, `_`
/// separators, `0x` hex), floats (`1.5`, `-2e3`, `inf`, `nan` are refused), booleans, arrays
/// (may span lines, trailing comma allowed), and `#` comments. Not supported (reported as syntax
/// errors): dotted keys, inline tables, arrays of tables, multi-line strings, dates.
public struct TOMLParser {
    private let bytes: [UInt8]
    private let source: String
    private var index = 0
    private var line = 1

    /// Parses `text`; errors name `source` and the line.
    public static func parse(_ text: String, source: String = "heartd.toml") throws(ConfigurationError) -> (entries: [TOMLEntry], sections: [String: Int]) {
        var parser = TOMLParser(bytes: Array(text.utf8), source: source)
        return try parser.parseDocument()
    }

    /// Parses a single value (used for command-line overrides).
    public static func parseValue(_ text: String, source: String = "override") throws(ConfigurationError) -> TOMLValue {
        var parser = TOMLParser(bytes: Array(text.utf8), source: source)
        parser.skipSpaces()
        let value = try parser.parseValue()
        parser.skipSpaces()
        guard parser.atEnd else { throw parser.error("unexpected text after value") }
        return value
    }

    private init(bytes: [UInt8], source: String) {
        self.bytes = bytes
        self.source = source
    }

    private var atEnd: Bool { index >= bytes.count }
    private var current: UInt8? { atEnd ? nil : bytes[index] }

    private func error(_ detail: String) -> ConfigurationError {
        ConfigurationError(.syntax, line: line, source: source, detail)
    }

    private mutating func parseDocument() throws(ConfigurationError) -> (entries: [TOMLEntry], sections: [String: Int]) {
        var entries: [TOMLEntry] = []
        var sections: [String: Int] = [:]
        var section: String?
        var seenKeys = Set<String>()
        while true {
            skipSpaces()
            guard let byte = current else { break }
            switch byte {
            case UInt8(ascii: "#"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                try endOfLine()
            case UInt8(ascii: "["):
                index += 1
                skipSpaces()
                if current == UInt8(ascii: "[") { throw error("arrays of tables ([[…]]) are not supported") }
                let name = bareKey()
                guard !name.isEmpty else { throw error("expected a section name after '['") }
                skipSpaces()
                if current == UInt8(ascii: ".") { throw error("dotted section names are not supported") }
                guard current == UInt8(ascii: "]") else { throw error("expected ']' after section name '\(name)'") }
                index += 1
                if let first = sections[name] {
                    throw ConfigurationError(.duplicate, key: name, line: line, source: source, "section [\(name)] already defined on line \(first)")
                }
                sections[name] = line
                section = name
                try endOfLine()
            default:
                let keyLine = line
                let key = bareKey()
                guard !key.isEmpty else { throw error("expected a key, found '\(Character(Unicode.Scalar(byte)))'") }
                skipSpaces()
                if current == UInt8(ascii: ".") { throw error("dotted keys are not supported") }
                guard current == UInt8(ascii: "=") else { throw error("expected '=' after key '\(key)'") }
                index += 1
                skipSpaces()
                let value = try parseValue()
                let qualified = (section.map { $0 + "." } ?? "") + key
                guard seenKeys.insert(qualified).inserted else {
                    throw ConfigurationError(.duplicate, key: qualified, line: keyLine, source: source, "key given twice")
                }
                entries.append(TOMLEntry(section: section, key: key, value: value, line: keyLine))
                try endOfLine()
            }
        }
        return (entries, sections)
    }

    /// Spaces, an optional comment, then a newline or the end.
    private mutating func endOfLine() throws(ConfigurationError) {
        skipSpaces()
        if current == UInt8(ascii: "#") {
            while let byte = current, byte != UInt8(ascii: "\n") { index += 1 }
        }
        if current == UInt8(ascii: "\r") { index += 1 }
        if current == UInt8(ascii: "\n") {
            index += 1
            line += 1
        } else if !atEnd {
            throw error("unexpected text at end of line")
        }
    }

    private mutating func skipSpaces() {
        while let byte = current, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
    }

    /// Spaces, newlines and comments (inside arrays).
    private mutating func skipBlank() {
        while let byte = current {
            if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") {
                index += 1
            } else if byte == UInt8(ascii: "\n") {
                index += 1
                line += 1
            } else if byte == UInt8(ascii: "#") {
                while let c = current, c != UInt8(ascii: "\n") { index += 1 }
            } else {
                return
            }
        }
    }

    private mutating func bareKey() -> String {
        let start = index
        while let byte = current, Self.isBareKeyByte(byte) { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private static func isBareKeyByte(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    private mutating func parseValue() throws(ConfigurationError) -> TOMLValue {
        guard let byte = current else { throw error("expected a value") }
        switch byte {
        case UInt8(ascii: "\""): return .string(try basicString())
        case UInt8(ascii: "'"): return .string(try literalString())
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "{"): throw error("inline tables are not supported")
        default: return try scalar()
        }
    }

    private mutating func basicString() throws(ConfigurationError) -> String {
        index += 1
        if current == UInt8(ascii: "\""), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
            throw error("multi-line strings are not supported")
        }
        var out: [UInt8] = []
        while true {
            guard let byte = current, byte != UInt8(ascii: "\n") else { throw error("unterminated string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escape = current else { throw error("unterminated string") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"), UInt8(ascii: "U"):
                    let count = escape == UInt8(ascii: "u") ? 4 : 8
                    guard index + count <= bytes.count,
                          let code = UInt32(String(decoding: bytes[index..<(index + count)], as: UTF8.self), radix: 16),
                          let scalar = Unicode.Scalar(code) else { throw error("invalid unicode escape") }
                    index += count
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in string")
                }
            default:
                if byte < 0x20 && byte != 0x09 { throw error("control character in string") }
                out.append(byte)
            }
        }
    }

    private mutating func literalString() throws(ConfigurationError) -> String {
        index += 1
        let start = index
        while let byte = current, byte != UInt8(ascii: "'") {
            if byte == UInt8(ascii: "\n") { throw error("unterminated string") }
            index += 1
        }
        guard current == UInt8(ascii: "'") else { throw error("unterminated string") }
        defer { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func array() throws(ConfigurationError) -> TOMLValue {
        let startLine = line
        index += 1
        var elements: [TOMLValue] = []
        while true {
            skipBlank()
            guard let byte = current else { throw ConfigurationError(.syntax, line: startLine, source: source, "unterminated array") }
            if byte == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            elements.append(try parseValue())
            skipBlank()
            if current == UInt8(ascii: ",") {
                index += 1
            } else if atEnd {
                throw ConfigurationError(.syntax, line: startLine, source: source, "unterminated array")
            } else if current != UInt8(ascii: "]") {
                throw error("expected ',' or ']' in array")
            }
        }
    }

    private mutating func scalar() throws(ConfigurationError) -> TOMLValue {
        let start = index
        while let byte = current, !(byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: "#")) {
            index += 1
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard !text.isEmpty else { throw error("expected a value") }
        if text == "true" { return .boolean(true) }
        if text == "false" { return .boolean(false) }
        if let value = Self.integer(text) { return .integer(value) }
        if let value = Self.float(text) { return .float(value) }
        throw error("invalid value '\(text)' (strings need quotes)")
    }
}
