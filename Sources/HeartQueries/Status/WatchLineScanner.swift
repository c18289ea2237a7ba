import Control
import Foundation

/// A small JSON reader for the `watch` events sent with every notification (`heart-rate`, `beats`, `dfa-alpha1`):
/// the line read into a `JSONValue` in one pass over its bytes, then the payload taken from it (dates in heartd's
/// one format read by arithmetic). `WatchMessage(line:)` uses it first and falls back to `JSONDecoder` for every
/// other event and for anything this reader does not take (a field missing or of another type: the decoder then
/// says what is wrong). `WatchLineTests` holds both paths equal.
enum WatchLineScanner {
    /// The heart-rate, beats or DFA α1 message of the line; nil for anything else.
    static func hotMessage(_ line: [UInt8]) -> WatchMessage? {
        var scanner = Scanner(bytes: line)
        guard case .object(let members)? = try? scanner.value(), scanner.atEnd,
              let name = members["event"]?.stringValue, let event = WatchEvent(rawValue: name),
              let device = members["device"]?.stringValue else { return nil }
        switch event {
        case .heartRate:
            guard case .int(let bpm)? = members["bpm"], let at = date(members["at"]) else { return nil }
            return .heartRate(.init(device: device, at: at, bpm: bpm))
        case .beats:
            guard case .array(let list)? = members["beats"] else { return nil }
            var beats: [WatchPayload.Beat] = []
            beats.reserveCapacity(list.count)
            for item in list {
                guard case .bool(let gap)? = item["gap"], let time = date(item["time"]) else { return nil }
                beats.append(.init(time: time, gap: gap))
            }
            return .beats(.init(device: device, beats: beats))
        case .dfaAlpha1:
            typealias Key = WatchPayload.DFAAlpha1.CodingKeys
            let alpha1 = members[Key.alpha1.stringValue]
            guard let at = date(members["at"]), let stateName = members[Key.state.stringValue]?.stringValue,
                  let state = DFAAlpha1State(rawValue: stateName), case .int(let intervals)? = members[Key.intervals.stringValue],
                  let artifacts = double(members[Key.artifactPercent.stringValue]),
                  case .bool(let windowFull)? = members[Key.windowFull.stringValue],
                  alpha1 == nil || alpha1 == .null || double(alpha1) != nil else { return nil }
            return .dfaAlpha1(.init(device: device, at: at, alpha1: double(alpha1), state: state, intervals: intervals,
                                    artifactPercent: artifacts, windowFull: windowFull))
        default:
            return nil
        }
    }

    private static func date(_ value: JSONValue?) -> Date? {
        guard let text = value?.stringValue else { return nil }
        return utcMilliseconds(text) ?? ExportDates.parse(text)
    }

    /// `ExportDates.iso`'s own form, `2026-05-28T20:26:40.125Z`, by arithmetic (days from the civil date); nil for
    /// any other form.
    static func utcMilliseconds(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count == 24, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "."), b[23] == UInt8(ascii: "Z")
        else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for i in from..<from + count {
                guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
              let minute = digits(14, 2), let second = digits(17, 2), let millisecond = digits(20, 3),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60 else { return nil }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds) + Double(millisecond) / 1_000)
    }

    private static func double(_ value: JSONValue?) -> Double? {
        switch value {
        case .int(let int)?: Double(int)
        case .double(let double)?: double
        default: nil
        }
    }

    private struct Malformed: Error {}

    /// Recursive descent over UTF-8 bytes (RFC 8259), depth-limited.
    private struct Scanner {
        let bytes: [UInt8]
        var at = 0
        var depth = 0

        var atEnd: Bool {
            mutating get {
                skipSpace()
                return at == bytes.count
            }
        }

        mutating func value() throws(Malformed) -> JSONValue {
            skipSpace()
            guard at < bytes.count else { throw Malformed() }
            switch bytes[at] {
            case UInt8(ascii: "{"): return try container(close: UInt8(ascii: "}"), object: true)
            case UInt8(ascii: "["): return try container(close: UInt8(ascii: "]"), object: false)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            default: return try number()
            }
        }

        private mutating func container(close: UInt8, object: Bool) throws(Malformed) -> JSONValue {
            depth += 1
            guard depth <= 32 else { throw Malformed() }
            defer { depth -= 1 }
            at += 1
            var members: [String: JSONValue] = [:]
            var items: [JSONValue] = []
            skipSpace()
            if at < bytes.count, bytes[at] == close {
                at += 1
                return object ? .object(members) : .array(items)
            }
            while true {
                if object {
                    skipSpace()
                    guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { throw Malformed() }
                    let key = try string()
                    try expect(UInt8(ascii: ":"))
                    members[key] = try value()
                } else {
                    items.append(try value())
                }
                skipSpace()
                guard at < bytes.count else { throw Malformed() }
                if bytes[at] == close {
                    at += 1
                    return object ? .object(members) : .array(items)
                }
                try expect(UInt8(ascii: ","))
            }
        }

        private mutating func string() throws(Malformed) -> String {
            at += 1
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 { at += 1 }
            guard at < bytes.count else { throw Malformed() }
            if bytes[at] == UInt8(ascii: "\"") {
                defer { at += 1 }
                return String(decoding: bytes[start..<at], as: UTF8.self)
            }
            // Escapes (rare in heartd's events): the decoder's way, from the opening quote.
            at = start - 1
            var end = start
            var escaped = false
            while end < bytes.count {
                if escaped { escaped = false } else if bytes[end] == UInt8(ascii: "\\") { escaped = true } else if bytes[end] == UInt8(ascii: "\"") { break }
                end += 1
            }
            guard end < bytes.count, let text = try? JSONDecoder().decode(String.self, from: Data(bytes[at...end])) else { throw Malformed() }
            at = end + 1
            return text
        }

        private mutating func number() throws(Malformed) -> JSONValue {
            let start = at
            while at < bytes.count, Self.numberBytes.contains(bytes[at]) { at += 1 }
            let text = String(decoding: bytes[start..<at], as: UTF8.self)
            if let int = Int(text) { return .int(int) }
            guard !text.isEmpty, let double = Double(text) else { throw Malformed() }
            return .double(double)
        }

        private static let numberBytes = Set("+-0123456789.eE".utf8)

        private mutating func literal(_ word: StaticString) throws(Malformed) {
            let count = word.utf8CodeUnitCount
            guard at + count <= bytes.count, word.withUTF8Buffer({ bytes[at..<at + count].elementsEqual($0) }) else { throw Malformed() }
            at += count
        }

        private mutating func expect(_ byte: UInt8) throws(Malformed) {
            skipSpace()
            guard at < bytes.count, bytes[at] == byte else { throw Malformed() }
            at += 1
        }

        private mutating func skipSpace() {
            while at < bytes.count {
                switch bytes[at] {
                case 0x20, 0x09, 0x0A, 0x0D: at += 1
                default: return
                }
            }
        }
    }
}
