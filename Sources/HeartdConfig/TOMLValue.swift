/// A value in heartd's TOML subset.
public enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case array([TOMLValue])

    /// A short name of the type for error messages.
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .float: return "float"
        case .boolean: return "boolean"
        case .array: return "array"
        }
    }
}

/// One `key = value` with where it stood.
public struct TOMLEntry: Sendable, Equatable {
    /// The enclosing `[section]`, `nil` before the first section header.
    public var section: String?
    public var key: String
    public var value: TOMLValue
    public var line: Int
}
