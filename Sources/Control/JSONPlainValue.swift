extension JSONPlainText {
    /// The root value, read in place.
    public var value: JSONPlainValue { JSONPlainValue(text: self, at: root) }
}

/// One value of a `JSONPlainText`, read in place: an object's member, an array's elements, a scalar as the type
/// `JSONValueDecoder` would decode it to (nil when it holds another type: the reader then takes the decoder's way,
/// which says why). No tree is built.
public struct JSONPlainValue: Sendable {
    let text: JSONPlainText
    let at: Int

    private var byte: UInt8 { text.bytes[at] }

    /// The first member `name` of an object; nil for a missing member or a value that is not an object.
    public subscript(member name: String) -> JSONPlainValue? {
        guard byte == UInt8(ascii: "{"), let start = text.member(name, ofObjectAt: at) else { return nil }
        return JSONPlainValue(text: text, at: start)
    }

    /// An array's elements; nil for a value that is not an array.
    public var elements: [JSONPlainValue]? {
        guard byte == UInt8(ascii: "[") else { return nil }
        return text.elements(ofArrayAt: at).map { JSONPlainValue(text: text, at: $0) }
    }

    public var isNull: Bool { byte == UInt8(ascii: "n") }

    /// A string's text (`decode(String.self)`).
    public var string: String? {
        guard byte == UInt8(ascii: "\"") else { return nil }
        return text.value(at: at).stringValue
    }

    /// A number that is a whole `Int` (`decode(Int.self)`).
    public var int: Int? {
        guard byte == UInt8(ascii: "-") || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) else { return nil }
        switch text.value(at: at) {
        case .int(let value): return value
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// `true` or `false` (`decode(Bool.self)`).
    public var bool: Bool? {
        switch byte {
        case UInt8(ascii: "t"): true
        case UInt8(ascii: "f"): false
        default: nil
        }
    }
}
