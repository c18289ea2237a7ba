/// JSON text → `JSONValue`, the tree `JSONDecoder` gave for `JSONValue` (a whole number, even `3.0`, is `.int`), at a
/// fraction of its cost: every line on the control socket (requests, responses, `watch` events) is read this way.
/// Anything that is not one JSON value, UTF-8, nested at most `maxDepth` deep, is a `JSONParseError`.
struct JSONValueParser {
    static let maxDepth = 512
    let bytes: [UInt8]
    var at = 0

    static func parse(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        var parser = JSONValueParser(bytes: Array(bytes))
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.at == parser.bytes.count else { throw parser.error("text after the value") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ reason: String) -> JSONParseError { JSONParseError(offset: at, reason: reason) }

    private mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
    }

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth < Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth)") }
        skipSpace()
        guard at < bytes.count else { throw error("unexpected end") }
        switch bytes[at] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        default: return try number()
        }
    }

    private mutating func literal(_ word: String) throws(JSONParseError) {
        let word = word.utf8
        guard at + word.count <= bytes.count, bytes[at..<at + word.count].elementsEqual(word) else { throw error("not a JSON value") }
        at += word.count
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        at += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "}") { at += 1; return .object(members) }
        while true {
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            skipSpace()
            guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { throw error("expected ':'") }
            at += 1
            let member = try value(depth: depth + 1)
            if members[key] == nil { members[key] = member }  // the first of a repeated name, as JSONDecoder
            skipSpace()
            guard at < bytes.count else { throw error("unexpected end") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            guard bytes[at] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            at += 1
            return .object(members)
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        at += 1
        var elements: [JSONValue] = []
        skipSpace()
        if at < bytes.count, bytes[at] == UInt8(ascii: "]") { at += 1; return .array(elements) }
        while true {
            elements.append(try value(depth: depth + 1))
            skipSpace()
            guard at < bytes.count else { throw error("unexpected end") }
            if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
            guard bytes[at] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            at += 1
            return .array(elements)
        }
    }

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = at
        var integral = true
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        guard at < bytes.count, Self.isDigit(bytes[at]) else { throw error("not a JSON value") }
        if bytes[at] == UInt8(ascii: "0") { at += 1 } else { while at < bytes.count, Self.isDigit(bytes[at]) { at += 1 } }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            integral = false
            at += 1
            guard at < bytes.count, Self.isDigit(bytes[at]) else { throw error("a digit must follow '.'") }
            while at < bytes.count, Self.isDigit(bytes[at]) { at += 1 }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            integral = false
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard at < bytes.count, Self.isDigit(bytes[at]) else { throw error("a digit must follow the exponent") }
            while at < bytes.count, Self.isDigit(bytes[at]) { at += 1 }
        }
        guard let value = Self.number(bytes[start..<at], integral: integral) else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        return value
    }

    /// A number's value from its checked text: `.int` when it is whole and fits, else `.double`; nil when out of range.
    static func number(_ text: ArraySlice<UInt8>, integral: Bool) -> JSONValue? {
        let text = String(decoding: text, as: UTF8.self)
        if integral, let int = Int(text) { return .int(int) }
        guard let double = Double(text), double.isFinite else { return nil }
        if let int = Int(exactly: double) { return .int(int) }
        return .double(double)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
}

/// Why a line is not JSON: where (a byte offset) and what.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public let offset: Int
    public let reason: String
    public var description: String { "not JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// One JSON value from its text (RFC 8259, UTF-8, nested at most 512 deep).
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        self = try JSONValueParser.parse(bytes)
    }
}
