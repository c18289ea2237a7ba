import Glibc
import SourceEvents

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

    enum Outcome {
        /// The line's event was appended.
        case appended
        case issue(ReplayIssue)
        /// Not a shape the scanner reads: the full decoder must.
        case unsupported
    }

    /// Appends the line's event to `events` (no intermediate copies of the event: a `SourceEvent` is large),
    /// or says what is wrong with it or that the full decoder must read it.
    mutating func scan(_ line: UnsafeBufferPointer<UInt8>, number: Int, into events: inout [SourceEvent]) -> Outcome {
        var cursor = Cursor(bytes: line)
        guard cursor.take(UInt8(ascii: "{")) else { return .unsupported }
        var time: Double?, device: Range<Int>?, hex: Range<Int>?
        repeat {
            guard let key = cursor.string(), cursor.take(UInt8(ascii: ":")) else { return .unsupported }
            switch key.count {
            case 1 where line[key.lowerBound] == UInt8(ascii: "t") && time == nil:
                guard let value = cursor.number(), value.isFinite else { return .unsupported }
                time = value
            case 6 where Self.equal(line, key, "device") && device == nil:
                guard let value = cursor.string() else { return .unsupported }
                device = value
            case 3 where Self.equal(line, key, "hex") && hex == nil:
                guard let value = cursor.string() else { return .unsupported }
                hex = value
            default:
                return .unsupported
            }
        } while cursor.take(UInt8(ascii: ","))
        guard cursor.take(UInt8(ascii: "}")), cursor.atEnd, let time, let device, let hex else { return .unsupported }

        guard let address = address(line, device) else { return .unsupported }
        guard !address.isEmpty else {
            return .issue(ReplayIssue(line: number, code: .emptyDevice, reason: "\"device\" is empty"))
        }
        guard let bytes = Self.bytes(line, hex) else { return .unsupported }
        guard let bytes else {
            return .issue(ReplayIssue(line: number, code: .invalidHex, reason: "\"hex\" is not an even number of hex digits"))
        }
        events.append(.notification(address: address, bytes: bytes, at: Timestamp(unixSeconds: time)))
        return .appended
    }

    /// The device trimmed of blanks and upper-cased (what the full decoder does); nil for non-ASCII.
    private mutating func address(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String? {
        var range = range
        while let first = range.first, line[first] == 0x20 || line[first] == 0x09 { range = range.dropFirst() }
        while let last = range.last, line[last] == 0x20 || line[last] == 0x09 { range = range.dropLast() }
        let raw = UnsafeBufferPointer(rebasing: line[range])
        if raw.count == lastRawDevice.count, let new = raw.baseAddress,
           lastRawDevice.withUnsafeBufferPointer({ old in old.baseAddress.map { memcmp($0, new, raw.count) == 0 } ?? false }) {
            return lastDevice
        }
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

    /// A JSON number (RFC 8259 grammar). Exact: up to 19 digits and a power of ten within ±22 take Clinger's
    /// fast path (both the digits, below 2^53, and 10^|e| are exact doubles, so one multiplication or division
    /// rounds correctly), anything else `strtod` — the same double the full decoder reads.
    mutating func number() -> Double? {
        skipBlanks()
        let start = index
        var mantissa: UInt64 = 0, digitCount = 0, fractionDigits = 0
        func digits(fraction: Bool) -> Int {
            let from = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                if digitCount < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] - UInt8(ascii: "0"))
                    if fraction { fractionDigits += 1 }
                }
                digitCount += 1
                index += 1
            }
            return index - from
        }
        let negative = index < bytes.count && bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        let integer = index
        guard digits(fraction: false) > 0, bytes[integer] != UInt8(ascii: "0") || index - integer == 1 else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits(fraction: true) > 0 else { return nil }
        }
        var exponent = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var sign = 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                if bytes[index] == UInt8(ascii: "-") { sign = -1 }
                index += 1
            }
            let from = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                if exponent < 10_000 { exponent = exponent * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            guard index > from else { return nil }
            exponent *= sign
        }
        let power = exponent - fractionDigits
        if digitCount <= 19, mantissa <= 1 << 53, (-22...22).contains(power) {
            let value = power < 0 ? Double(mantissa) / Self.powersOfTen[-power] : Double(mantissa) * Self.powersOfTen[power]
            return negative ? -value : value
        }
        let length = index - start
        guard length < 64 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { text in
            for k in 0..<length { text[k] = CChar(bitPattern: bytes[start + k]) }
            text[length] = 0
            return strtod(text.baseAddress!, nil)
        }
    }

    /// 10^0 … 10^22, each exactly representable.
    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { value, _ in value * 10 } }
}
