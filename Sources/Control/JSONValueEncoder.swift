import Foundation

/// Encodes an `Encodable` straight into a `JSONValue`: the tree `JSONEncoder` followed by decoding its text into a
/// `JSONValue` gives, without the text in between. heartd builds a `watch` event this way for every notification,
/// where the round trip through text was half of its CPU with one live client.
///
/// `JSONEncoder`'s conventions hold: an absent optional is no member, a non-finite double is an error, `URL` is its
/// absolute string and `Data` base64; a `Date` is what `date` makes of it (by default its `Codable` number).
public struct JSONValueEncoder: Sendable {
    public var date: (@Sendable (Date) -> JSONValue)?

    public init(date: (@Sendable (Date) -> JSONValue)? = nil) {
        self.date = date
    }

    public func encode(_ value: some Encodable) throws -> JSONValue {
        let node = JSONNode()
        try JSONNodeEncoder(node: node, codingPath: [], options: self).encodeValue(value, into: node)
        guard let result = node.value else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "\(type(of: value)) encoded no value"))
        }
        return result
    }
}

/// A value under construction: containers write into it after they are handed out, so it is a reference.
final class JSONNode {
    private enum Content { case none, value(JSONValue), object([String: JSONNode]), array([JSONNode]) }
    private var content = Content.none

    func set(_ value: JSONValue) { content = .value(value) }

    /// The member `key`, made an object first if this is not one yet.
    func member(_ key: String) -> JSONNode {
        var members: [String: JSONNode] = [:]
        if case .object(let existing) = content { members = existing }
        if let node = members[key] { return node }
        // `content` lets go first, so `members` is the only reference and the insert is in place (not a copy).
        content = .none
        let node = JSONNode()
        members[key] = node
        content = .object(members)
        return node
    }

    func makeObject() { if case .object = content {} else { content = .object([:]) } }
    func makeArray() { if case .array = content {} else { content = .array([]) } }

    func append() -> JSONNode {
        var elements: [JSONNode] = []
        if case .array(let existing) = content { elements = existing }
        // `content` lets go first, so `elements` is the only reference and the append is in place: copying the
        // array at each element made a listing of n samples cost n² (a page of 10,000 took 4.5 s).
        content = .none
        let node = JSONNode()
        elements.append(node)
        content = .array(elements)
        return node
    }

    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }

    var value: JSONValue? {
        switch content {
        case .none: nil
        case .value(let value): value
        case .object(let members): .object(members.compactMapValues(\.value))
        case .array(let elements): .array(elements.map { $0.value ?? .object([:]) })
        }
    }
}

struct JSONNodeEncoder: Encoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    let options: JSONValueEncoder
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(JSONKeyedContainer<Key>(encoder: self, node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return JSONUnkeyedContainer(encoder: self, node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        JSONSingleContainer(encoder: self, node: node, codingPath: codingPath)
    }

    func nested(_ node: JSONNode, _ key: any CodingKey) -> JSONNodeEncoder {
        JSONNodeEncoder(node: node, codingPath: codingPath + [key], options: options)
    }

    /// Encodes `value` into `node`, with the types `JSONEncoder` treats specially.
    func encodeValue(_ value: some Encodable, into node: JSONNode) throws {
        switch value {
        case let date as Date:
            if let make = options.date { node.set(make(date)) } else { try date.encode(to: JSONNodeEncoder(node: node, codingPath: codingPath, options: options)) }
        case let url as URL: node.set(.string(url.absoluteString))
        case let data as Data: node.set(.string(data.base64EncodedString()))
        case let number as Double: node.set(try Self.double(number, codingPath))
        case let number as Float: node.set(try Self.double(Double(number.description) ?? Double(number), codingPath))
        default: try value.encode(to: JSONNodeEncoder(node: node, codingPath: codingPath, options: options))
        }
    }

    static func double(_ value: Double, _ codingPath: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) is not valid JSON"))
        }
        if let int = Int(exactly: value) { return .int(int) }  // JSON text has one number kind: 3.0 reads back as 3
        return .double(value)
    }

    /// An integer as JSON reads it back: an `Int` when it fits, else a double.
    static func integer(_ value: some BinaryInteger) -> JSONValue {
        if let int = Int(exactly: value) { return .int(int) }
        return .double(Double(value))
    }
}
