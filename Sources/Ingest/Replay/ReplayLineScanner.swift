#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fast path for the line a recorder writes 86,400 times a day, `{"t":…,"device":"…","hex":"…"}` (keys in
/// any order, any blanks between tokens): scanned straight from the bytes, with no `JSONDecoder` and no
/// `String` per line. It accepts only what the full decoder (`ReplayReader.parseLine`) would read the same way
/// — plain ASCII strings without escapes, a JSON number, each key once, nothing else — and answers `nil` for
/// anything else, which then goes to the full decoder: same semantics, same messages.
struct ReplayLineScanner {
    /// The last device address seen, raw and as the event's address: a recording is mostly one sensor, so
    /// the address `String` is built once, not once per line.
    private var lastRawDevice: [UInt8] = []
    private var lastDevice = ""

    /// The line's event or its issue, or nil when the full decoder must read it.
    mutating func scan(_ line: UnsafeBufferPointer<UInt8>, number: Int) -> Result<SourceEvent?, ReplayIssue>? {
        var cursor = Cursor(bytes: line)
        guard cursor.take(UInt8(ascii: "{")) else { return nil }
        var time: Double?, device: Range<Int>?, hex: Range<Int>?
        repeat {
            guard let key = cursor.string(), cursor.take(UInt8(ascii: ":")) else { return nil }
            switch key.count {
            case 1 where line[key.lowerBound] == UInt8(ascii: "t") && time == nil:
                guard let value = cursor.number(), value.isFinite else { return nil }
                time = value
            case 6 where Self.equal(line, key, "device") && device == nil:
                guard let value = cursor.string() else { return nil }
                device = value
            case 3 where Self.equal(line, key, "hex") && hex == nil:
                guard let value = cursor.string() else { return nil }
                hex = value
            default:
                return nil
            }
        } while cursor.take(UInt8(ascii: ","))
        guard cursor.take(UInt8(ascii: "}")), cursor.atEnd, let time, let device, let hex else { return nil }

        guard let address = address(line, device) else { return nil }
        guard !address.isEmpty else {
            return .failure(ReplayIssue(line: number, code: .emptyDevice, reason: "\"device\" is empty"))
        }
        guard let bytes = Self.bytes(line, hex) else { return nil }
        guard let bytes else {
            return .failure(ReplayIssue(line: number, code: .invalidHex, reason: "\"hex\" is not an even number of hex digits"))
        }
        return .success(.notification(address: address, bytes: bytes, at: Timestamp(unixSeconds: time)))
    }

    /// The device trimmed of blanks and upper-cased (what the full decoder does); nil for non-ASCII.
    private mutating func address(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        var range = range
        while let first = range.first, line[first] == 0x20 || line[first] == 0x09 { range = range.dropFirst() }
        while let last = range.last, line[last] == 0x20 || line[last] == 0x09 { range = range.dropLast() }
        let raw = UnsafeBufferPointer(rebasing: line[range])
        if raw.elementsEqual(lastRawDevice) { return lastDevice }
        guard raw.allSatisfy({ $0 < 0x80 }) else { return nil }
        lastRawDevice = Array(raw)
        lastDevice = String(decoding: raw.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
        return lastDevice
    }

    /// The payload of a hex string (blanks and colons between digits ignored): `.some(nil)` for an odd number
    /// of digits, nil for a character the full decoder must judge.
    private static func bytes(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> [UInt8]?? {
        var out: [UInt8] = []
        out.reserveCapacity(range.count / 2)
        var high: UInt8?
        for index in range {
            let c = line[index]
            let digit: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: " "), UInt8(ascii: ":"): continue
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | digit)
                high = nil
            } else {
                high = digit
            }
        }
        return .some(high == nil ? out : nil)
    }

    private static func equal(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ word: StaticString) -> Bool {
        range.count == word.utf8CodeUnitCount
            && word.withUTF8Buffer { w in UnsafeBufferPointer(rebasing: line[range]).elementsEqual(w) }
    }
}

/// A position in a line, skipping JSON blanks before every token.
private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var atEnd: Bool {
        mutating get {
            skipBlanks()
            return index == bytes.count
        }
    }

    mutating func skipBlanks() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    /// Consumes `byte` (after blanks) if it is next.
    mutating func take(_ byte: UInt8) -> Bool {
        skipBlanks()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// The contents of a string of printable ASCII without escapes; nil for anything else.
    mutating func string() -> Range<Int>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let c = bytes[index]
            if c == UInt8(ascii: "\"") {
                index += 1
                return start..<(index - 1)
            }
            guard c >= 0x20, c < 0x7F, c != UInt8(ascii: "\\") else { return nil }
            index += 1
        }
        return nil
    }

    /// A JSON number (RFC 8259 grammar), converted by `strtod` (correctly rounded, as the full decoder's).
    mutating func number() -> Double? {
        skipBlanks()
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - from
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        let integer = index
        guard digits() > 0, bytes[integer] != UInt8(ascii: "0") || index - integer == 1 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { return nil }
        }
        let length = index - start
        guard length < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { text in
            for k in 0..<length { text[k] = CChar(bitPattern: bytes[start + k]) }
            text[length] = 0
            return strtod(text.baseAddress!, nil)
        }
    }
}
