extension JSONValueParser {
    /// A string at `at` (its opening quote), unescaped; raw control characters and invalid UTF-8 are errors, as in
    /// `JSONDecoder`.
    mutating func string() throws(JSONParseError) -> String {
        at += 1
        var out: [UInt8] = []
        while true {
            guard at < bytes.count else { throw error("unterminated string") }
            let byte = bytes[at]
            switch byte {
            case UInt8(ascii: "\""):
                at += 1
                guard let text = String(validating: out, as: UTF8.self) else { throw error("a string is not UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                at += 1
                guard at < bytes.count else { throw error("unterminated string") }
                let escape = bytes[at]
                at += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"): out += Array(String(try unicodeEscape()).utf8)
                default: throw error("invalid escape")
                }
            case 0..<0x20: throw error("a control character in a string")
            default:
                out.append(byte)
                at += 1
            }
        }
    }

    /// `\uXXXX` after its `u`, with a following low surrogate when it is a high one.
    private mutating func unicodeEscape() throws(JSONParseError) -> Character {
        let first = try hex4()
        if (0xD800..<0xDC00).contains(first) {
            guard at + 1 < bytes.count, bytes[at] == UInt8(ascii: "\\"), bytes[at + 1] == UInt8(ascii: "u") else {
                throw error("a lone high surrogate")
            }
            at += 2
            let second = try hex4()
            guard (0xDC00..<0xE000).contains(second),
                  let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)) else {
                throw error("an invalid surrogate pair")
            }
            return Character(scalar)
        }
        guard let scalar = Unicode.Scalar(first) else { throw error("a lone low surrogate") }
        return Character(scalar)
    }

    private mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard at + 4 <= bytes.count else { throw error("a short \\u escape") }
        var value: UInt32 = 0
        for byte in bytes[at..<at + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt32(digit)
        }
        at += 4
        return value
    }
}
