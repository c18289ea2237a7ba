/// `JSONValue` as compact JSON text, the bytes `JSONEncoder` writes with `.sortedKeys` and
/// `.withoutEscapingSlashes` (the control socket's line format), without `JSONEncoder`'s generic machinery: every
/// `watch` event is written this way.
enum JSONValueWriter {
    static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(value, into: &out)
        return out
    }

    static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let value): out += (value ? "true" : "false").utf8
        case .int(let value): out += String(value).utf8
        case .double(let value): out += number(value).utf8
        case .string(let value): string(value, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (i, element) in elements.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (i, key) in members.keys.sorted(by: keyOrder).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(members[key]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `JSONEncoder`'s order for `.sortedKeys`: by UTF-8 bytes.
    static func keyOrder(_ a: String, _ b: String) -> Bool { a.utf8.lexicographicallyPrecedes(b.utf8) }

    /// A double as `JSONEncoder` writes it: its shortest round-trip text, without a trailing ".0". Non-finite values
    /// never reach here (`JSONValueEncoder` refuses them); `null` is what `JSONLine` sent for them.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    static func string(_ value: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += #"\""#.utf8
            case UInt8(ascii: "\\"): out += #"\\"#.utf8
            case 0x0A: out += #"\n"#.utf8
            case 0x0D: out += #"\r"#.utf8
            case 0x09: out += #"\t"#.utf8
            case 0x08: out += #"\b"#.utf8
            case 0x0C: out += #"\f"#.utf8
            case 0..<0x20:
                out += #"\u00"#.utf8
                out.append(hex(byte >> 4))
                out.append(hex(byte & 0xF))
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hex(_ nibble: UInt8) -> UInt8 { nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10 }
}
