/// JSON text of the plain form heartd writes on its control socket — strings of printable ASCII without escapes,
/// nested at most `maxDepth` deep — checked in one pass without building anything, and read in place: where each
/// value starts and ends, an object's member by name, an array's elements. A text it declines (not JSON, or JSON of another form) is read by `JSONValueParser` instead, so
/// what this accepts must be exactly what that parser accepts, to the same value. A typed reader that must be quicker
/// than `Decodable` reads its fields through `value` (`WatchMessage(line:)` does for the hottest events).
public struct JSONPlainText: Sendable {
    static let maxDepth = 64
    let bytes: [UInt8]

    /// `bytes` when they are one plain JSON value (with spaces around it); nil otherwise.
    public init?(_ bytes: [UInt8]) {
        self.bytes = bytes
        var at = 0
        guard check(&at, depth: 0) else { return nil }
        skipSpace(&at)
        guard at == bytes.count else { return nil }
    }

    /// The first byte of the root value.
    var root: Int {
        var at = 0
        skipSpace(&at)
        return at
    }

    func skipSpace(_ at: inout Int) {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
    }

    /// Checks the value at `at` (after spaces) and moves past it; false for anything not plain JSON.
    private func check(_ at: inout Int, depth: Int) -> Bool {
        guard depth < Self.maxDepth else { return false }
        skipSpace(&at)
        guard at < bytes.count else { return false }
        switch bytes[at] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let close = bytes[at] == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
            at += 1
            skipSpace(&at)
            if at < bytes.count, bytes[at] == close { at += 1; return true }
            while true {
                if close == UInt8(ascii: "}") {
                    skipSpace(&at)
                    guard at < bytes.count, bytes[at] == UInt8(ascii: "\""), stringEnd(&at) else { return false }
                    skipSpace(&at)
                    guard at < bytes.count, bytes[at] == UInt8(ascii: ":") else { return false }
                    at += 1
                }
                guard check(&at, depth: depth + 1) else { return false }
                skipSpace(&at)
                guard at < bytes.count else { return false }
                if bytes[at] == UInt8(ascii: ",") { at += 1; continue }
                guard bytes[at] == close else { return false }
                at += 1
                return true
            }
        case UInt8(ascii: "\""): return stringEnd(&at)
        case UInt8(ascii: "t"): return word("true", &at)
        case UInt8(ascii: "f"): return word("false", &at)
        case UInt8(ascii: "n"): return word("null", &at)
        default: return number(&at) != nil
        }
    }

    /// Moves from a string's opening quote past its closing one; false for an escape, a byte outside printable
    /// ASCII, or no end.
    private func stringEnd(_ at: inout Int) -> Bool {
        at += 1
        while at < bytes.count {
            let byte = bytes[at]
            at += 1
            if byte == UInt8(ascii: "\"") { return true }
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return false }
        }
        return false
    }

    private func word(_ word: StaticString, _ at: inout Int) -> Bool {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { return false }
        for i in 0..<count where bytes[at + i] != word.utf8Start[i] { return false }
        at += count
        return true
    }

    /// A number's value, moving past it: `JSONValueParser`'s grammar and value; nil when it is not one.
    func number(_ at: inout Int) -> JSONValue? {
        let start = at
        var integral = true
        func digits() -> Bool {
            let first = at
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") { at += 1 }
            return at > first
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "-") { at += 1 }
        guard at < bytes.count else { return nil }
        if bytes[at] == UInt8(ascii: "0") { at += 1 } else { guard digits() else { return nil } }
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            integral = false
            at += 1
            guard digits() else { return nil }
        }
        if at < bytes.count, bytes[at] == UInt8(ascii: "e") || bytes[at] == UInt8(ascii: "E") {
            integral = false
            at += 1
            if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") { at += 1 }
            guard digits() else { return nil }
        }
        return JSONValueParser.number(bytes[start..<at], integral: integral)
    }

    /// Where the (checked) value starting at `at` ends.
    func end(of at: Int) -> Int {
        var at = at
        _ = check(&at, depth: 0)
        return at
    }

    /// The start of `name`'s first member in the (checked) object at `at`, nil when it has none.
    func member(_ name: String, ofObjectAt at: Int) -> Int? {
        var found: Int?
        forEachMember(ofObjectAt: at) { key, value in
            guard bytes[key].elementsEqual(name.utf8) else { return true }
            found = value
            return false
        }
        return found
    }

    /// Each member's name (its bytes' range) and value's start, in order, while `body` says to go on.
    func forEachMember(ofObjectAt at: Int, _ body: (Range<Int>, Int) -> Bool) {
        var at = at + 1
        skipSpace(&at)
        guard bytes[at] != UInt8(ascii: "}") else { return }
        while true {
            skipSpace(&at)
            let keyStart = at + 1
            _ = stringEnd(&at)
            let key = keyStart..<at - 1
            skipSpace(&at)
            at += 1  // ":"
            skipSpace(&at)
            guard body(key, at) else { return }
            at = end(of: at)
            skipSpace(&at)
            guard bytes[at] == UInt8(ascii: ",") else { return }
            at += 1
        }
    }

    /// The starts of the elements of the (checked) array at `at`.
    func elements(ofArrayAt at: Int) -> [Int] {
        var at = at + 1
        var starts: [Int] = []
        skipSpace(&at)
        guard bytes[at] != UInt8(ascii: "]") else { return starts }
        while true {
            skipSpace(&at)
            starts.append(at)
            at = end(of: at)
            skipSpace(&at)
            guard bytes[at] == UInt8(ascii: ",") else { return starts }
            at += 1
        }
    }

    /// The scalar at `at` as a `JSONValue` (a string, number, literal); for an object or array, its whole tree.
    func value(at: Int) -> JSONValue {
        switch bytes[at] {
        case UInt8(ascii: "\""):
            var end = at
            _ = stringEnd(&end)
            return .string(String(decoding: bytes[at + 1..<end - 1], as: UTF8.self))
        case UInt8(ascii: "t"): return .bool(true)
        case UInt8(ascii: "f"): return .bool(false)
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return (try? JSONValueParser.parse(bytes[at..<end(of: at)])) ?? .null  // checked: it parses
        default:
            var end = at
            return number(&end) ?? .null  // checked: it is a number
        }
    }
}
