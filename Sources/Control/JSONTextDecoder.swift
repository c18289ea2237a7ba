import Foundation

extension JSONValueDecoder {
    /// What `decode(type, from: JSONValue(parsing: bytes))` gives — the same value, or the same error — read
    /// straight from the text when it is of the plain form heartd writes (`JSONPlainText`): no `JSONValue` tree is
    /// built, only the members `type` asks for are read. A live service's `watch` lines are decoded this way
    /// (`WatchMessage(line:)`; heart rate and beats read in place, `JSONPlainValue`). Any other text, and any text `type` cannot be decoded from, goes through the tree, whose error is thrown.
    public func decode<T: Decodable>(_ type: T.Type, text bytes: [UInt8]) throws -> T {
        if let plain = JSONPlainText(bytes),
           let value = try? JSONTextTreeDecoder(text: plain, at: plain.root, codingPath: [], options: self).decodeValue(type) {
            return value
        }
        return try decode(type, from: JSONValue(parsing: bytes))
    }
}

/// `JSONTreeDecoder` over a plain text's value at `at`, not its tree: containers read members and elements where
/// they lie; scalars are made into a one-value `JSONValue` and decoded by `JSONTreeDecoder`, so a field decodes by
/// the same rules on either path.
struct JSONTextTreeDecoder: Decoder {
    let text: JSONPlainText
    let at: Int
    let codingPath: [any CodingKey]
    let options: JSONValueDecoder
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    var byte: UInt8 { text.bytes[at] }

    /// The value as a tree decoder: a scalar alone, an object or array parsed (only when a type asks for that).
    var tree: JSONTreeDecoder { JSONTreeDecoder(value: text.value(at: at), codingPath: codingPath, options: options) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard byte == UInt8(ascii: "{") else { throw tree.mismatch([String: JSONValue].self) }
        return KeyedDecodingContainer(JSONTextKeyedContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard byte == UInt8(ascii: "[") else { throw tree.mismatch([JSONValue].self) }
        return JSONTextUnkeyedContainer(decoder: self, elements: text.elements(ofArrayAt: at))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { JSONSingleDecodingContainer(decoder: tree) }

    func child(_ at: Int, _ key: any CodingKey) -> JSONTextTreeDecoder {
        JSONTextTreeDecoder(text: text, at: at, codingPath: codingPath + [key], options: options)
    }

    /// `type` from this value: the types `JSONTreeDecoder` treats specially, and scalars, through it.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if type == JSONValue.self || type == Date.self || type == URL.self || type == Data.self {
            return try tree.decodeValue(type)
        }
        return try T(from: self)
    }
}

struct JSONTextKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JSONTextTreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var keys: [Key] = []
        decoder.text.forEachMember(ofObjectAt: decoder.at) { name, _ in
            if let key = Key(stringValue: String(decoding: decoder.text.bytes[name], as: UTF8.self)) { keys.append(key) }
            return true
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { decoder.text.member(key.stringValue, ofObjectAt: decoder.at) != nil }

    private func child(_ key: Key) throws -> JSONTextTreeDecoder {
        guard let at = decoder.text.member(key.stringValue, ofObjectAt: decoder.at) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no member \"\(key.stringValue)\""))
        }
        return decoder.child(at, key)
    }

    func decodeNil(forKey key: Key) throws -> Bool { try child(key).byte == UInt8(ascii: "n") }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).tree.bool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).tree.string() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).tree.double() }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).tree.integer(Int.self) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { try decoder.tree.container(keyedBy: JSONIndexKey.self).superDecoder() }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder.tree.container(keyedBy: Key.self).superDecoder(forKey: key)
    }
}

struct JSONTextUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTextTreeDecoder
    let elements: [Int]
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    init(decoder: JSONTextTreeDecoder, elements: [Int]) {
        self.decoder = decoder
        self.elements = elements
    }

    private mutating func next() throws -> JSONTextTreeDecoder {
        let key = JSONIndexKey(index: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath + [key], debugDescription: "the array has ended"))
        }
        currentIndex += 1
        return decoder.child(elements[currentIndex - 1], key)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, decoder.text.bytes[elements[currentIndex]] == UInt8(ascii: "n") else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().tree.bool() }
    mutating func decode(_ type: String.Type) throws -> String { try next().tree.string() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().tree.double() }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().tree.integer(Int.self) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decodeValue(type) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}
