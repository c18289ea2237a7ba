import Foundation

/// Decodes a `Decodable` straight from a `JSONValue`: what `JSONDecoder` gave for the value's JSON text, without
/// writing the text; `decode(_:text:)` parses the text first.
///
/// `JSONDecoder`'s conventions hold: a number decodes as any numeric type that holds it exactly, a missing member is
/// `keyNotFound` (or `nil` through `decodeIfPresent`), `URL` comes from a string and `Data` from base64; a `Date` is
/// what `date` makes of its value (by default its `Codable` number).
public struct JSONValueDecoder: Sendable {
    public var date: (@Sendable (JSONValue, [any CodingKey]) throws -> Date)?

    public init(date: (@Sendable (JSONValue, [any CodingKey]) throws -> Date)? = nil) {
        self.date = date
    }

    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONTreeDecoder(value: value, codingPath: [], options: self).decodeValue(type)
    }

    /// `decode(type, from: JSONValue(parsing: bytes))`. (`Decodable` read straight from the text cost as much as the
    /// tree, measured on heartd-web's `watch` lines; the hot events are read in place instead, `JSONPlainValue`.)
    public func decode<T: Decodable>(_ type: T.Type, text bytes: [UInt8]) throws -> T {
        try decode(type, from: JSONValue(parsing: bytes))
    }
}

struct JSONTreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let options: JSONValueDecoder
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(JSONKeyedDecodingContainer<Key>(decoder: self, members: members))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self) }
        return JSONUnkeyedDecodingContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { JSONSingleDecodingContainer(decoder: self) }

    func child(_ value: JSONValue, _ key: any CodingKey) -> JSONTreeDecoder {
        JSONTreeDecoder(value: value, codingPath: codingPath + [key], options: options)
    }

    func mismatch(_ type: Any.Type) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(value)"))
    }

    /// `type` from this value, with the types `JSONDecoder` treats specially.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self { return value as! T }
        if type == Date.self, let make = options.date { return try make(value, codingPath) as! T }
        if type == URL.self {
            guard case .string(let text) = value, let url = URL(string: text) else { throw mismatch(URL.self) }
            return url as! T
        }
        if type == Data.self {
            guard case .string(let text) = value, let data = Data(base64Encoded: text) else { throw mismatch(Data.self) }
            return data as! T
        }
        return try T(from: self)
    }

    func bool() throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self) }
        return flag
    }

    func string() throws -> String {
        guard case .string(let text) = value else { throw mismatch(String.self) }
        return text
    }

    func double() throws -> Double {
        switch value {
        case .int(let int): return Double(int)
        case .double(let double): return double
        default: throw mismatch(Double.self)
        }
    }

    /// An integer type from a number that it holds exactly.
    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        switch value {
        case .int(let int): if let exact = T(exactly: int) { return exact }
        case .double(let double): if let exact = T(exactly: double) { return exact }
        default: break
        }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(value) does not fit \(T.self)"))
    }
}
