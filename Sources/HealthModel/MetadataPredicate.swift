import Foundation

/// Which metadata an object must carry to be listed: HealthKit's
/// `predicateForObjects(withMetadataKey:allowedValues:)`, one per key, combined with AND. For every key the object's
/// own metadata must hold one of that key's allowed values; an empty predicate matches everything.
///
/// `heartctl --meta subject=S01 --meta subject=S02 --meta condition=rest` is
/// `subject ∈ {S01, S02} AND condition = rest`.
public struct MetadataPredicate: Sendable, Hashable, Codable {
    /// Allowed values per key (never an empty set).
    public private(set) var allowedValues: [String: Set<String>]

    public init(_ allowedValues: [String: Set<String>] = [:]) {
        self.allowedValues = allowedValues.filter { !$0.value.isEmpty }
    }

    /// Each key with exactly one allowed value (a plain metadata dictionary).
    public init(exactly metadata: Metadata) {
        self.init(metadata.mapValues { [$0] })
    }

    public var isEmpty: Bool { allowedValues.isEmpty }

    /// Adds `value` to the values allowed for `key`.
    public mutating func allow(_ key: String, _ value: String) {
        allowedValues[key, default: []].insert(value)
    }

    /// Restricts `key` to exactly `value` (a session's UUID: the only one asked for).
    public mutating func require(_ key: String, _ value: String) {
        allowedValues[key] = [value]
    }

    /// Whether `metadata` holds an allowed value for every key.
    public func matches(_ metadata: Metadata) -> Bool {
        allowedValues.allSatisfy { key, values in metadata[key].map(values.contains) ?? false }
    }

    /// Keys in a stable order with their values sorted (for SQL and messages).
    public var sortedClauses: [(key: String, values: [String])] {
        allowedValues.keys.sorted().map { ($0, allowedValues[$0, default: []].sorted()) }
    }
}

extension MetadataPredicate: ExpressibleByDictionaryLiteral {
    /// `["subject": "S01"]`: each key with exactly this value.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init()
        for (key, value) in elements { allow(key, value) }
    }
}
