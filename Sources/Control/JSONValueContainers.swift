/// The three containers of `JSONValueEncoder`: each writes into its `JSONNode`.
struct JSONKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: JSONNodeEncoder
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).set(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.member(key.stringValue).set(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.member(key.stringValue).set(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        node.member(key.stringValue).set(try JSONNodeEncoder.double(value, codingPath + [key]))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.member(key.stringValue).set(.int(value)) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.nested(node, key).encodeValue(value, into: node.member(key.stringValue))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        encoder.nested(node.member(key.stringValue), key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoder.nested(node.member(key.stringValue), key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { encoder.nested(node.member("super"), JSONIndexKey(string: "super")) }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder.nested(node.member(key.stringValue), key) }
}

struct JSONUnkeyedContainer: UnkeyedEncodingContainer {
    let encoder: JSONNodeEncoder
    let node: JSONNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private var key: JSONIndexKey { JSONIndexKey(index: node.count) }

    mutating func encodeNil() throws { node.append().set(.null) }
    mutating func encode(_ value: Bool) throws { node.append().set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.append().set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.append().set(try JSONNodeEncoder.double(value, codingPath + [key])) }
    mutating func encode(_ value: Int) throws { node.append().set(.int(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = key
        try encoder.nested(node, key).encodeValue(value, into: node.append())
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = key
        return encoder.nested(node.append(), key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = key
        return encoder.nested(node.append(), key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let key = key
        return encoder.nested(node.append(), key)
    }
}

struct JSONSingleContainer: SingleValueEncodingContainer {
    let encoder: JSONNodeEncoder
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.set(.null) }
    mutating func encode(_ value: Bool) throws { node.set(.bool(value)) }
    mutating func encode(_ value: String) throws { node.set(.string(value)) }
    mutating func encode(_ value: Double) throws { node.set(try JSONNodeEncoder.double(value, codingPath)) }
    mutating func encode(_ value: Float) throws { try encode(Double(value.description) ?? Double(value)) }
    mutating func encode(_ value: Int) throws { node.set(.int(value)) }
    mutating func encode(_ value: Int8) throws { node.set(.int(Int(value))) }
    mutating func encode(_ value: Int16) throws { node.set(.int(Int(value))) }
    mutating func encode(_ value: Int32) throws { node.set(.int(Int(value))) }
    mutating func encode(_ value: Int64) throws { node.set(JSONNodeEncoder.integer(value)) }
    mutating func encode(_ value: UInt) throws { node.set(JSONNodeEncoder.integer(value)) }
    mutating func encode(_ value: UInt8) throws { node.set(.int(Int(value))) }
    mutating func encode(_ value: UInt16) throws { node.set(.int(Int(value))) }
    mutating func encode(_ value: UInt32) throws { node.set(.int(Int(value))) }
    mutating func encode(_ value: UInt64) throws { node.set(JSONNodeEncoder.integer(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoder.encodeValue(value, into: node) }
}

/// An array index or `super` as a coding path element.
struct JSONIndexKey: CodingKey {
    /// An element's key is made for every element decoded or encoded, and read only by an error: its name is written
    /// when asked, and the key fits an existential's inline buffer (no allocation).
    private let index: Int
    private let name: String?
    var stringValue: String { name ?? "Index \(index)" }
    var intValue: Int? { name == nil ? index : nil }

    init(index: Int) { self.index = index; name = nil }
    init(string: String) { index = 0; name = string }
    init?(stringValue: String) { self.init(string: stringValue) }
    init?(intValue: Int) { self.init(index: intValue) }
}
