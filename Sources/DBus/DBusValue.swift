/// One typed D-Bus value, as it travels in a message body.
///
/// Containers carry the signatures they need to be written even when empty: an array carries
/// its element signature, a dictionary its key and value signatures. `ay` has its own case
/// (`bytes`) because it is the hot path (GATT values) and is read with one copy.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A file descriptor owned by the value (closed when the last reference goes).
    case unixFD(UnixFileDescriptor)
    /// `ay`, read and written as one fixed array.
    case bytes([UInt8])
    /// An array of any other element type; `elementSignature` is the D-Bus signature of one element.
    case array(elementSignature: String, [DBusValue])
    /// `a{kv}`: keys must be basic types.
    case dict(keySignature: String, valueSignature: String, [DBusDictEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    /// The D-Bus type signature of this value.
    public var signature: String {
        switch self {
        case .byte: return "y"
        case .bool: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .unixFD: return "h"
        case .bytes: return "ay"
        case .array(let element, _): return "a" + element
        case .dict(let k, let v, _): return "a{" + k + v + "}"
        case .structure(let fields): return "(" + fields.map(\.signature).joined() + ")"
        case .variant: return "v"
        }
    }
}

/// One entry of a D-Bus dictionary (`{kv}`).
public struct DBusDictEntry: Sendable, Hashable {
    public var key: DBusValue
    public var value: DBusValue
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

extension DBusValue {
    /// The value inside any number of variants.
    public var unwrapped: DBusValue {
        var v = self
        while case .variant(let inner) = v { v = inner }
        return v
    }

    /// A string, object path or signature (variants unwrapped).
    public var string: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): return s
        default: return nil
        }
    }

    /// An object path (variants unwrapped).
    public var objectPath: String? {
        if case .objectPath(let s) = unwrapped { return s }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let b) = unwrapped { return b }
        return nil
    }

    /// Any integer type that fits in Int (variants unwrapped).
    public var int: Int? {
        switch unwrapped {
        case .byte(let v): return Int(v)
        case .int16(let v): return Int(v)
        case .uint16(let v): return Int(v)
        case .int32(let v): return Int(v)
        case .uint32(let v): return Int(v)
        case .int64(let v): return Int(v)
        case .uint64(let v): return Int(exactly: v)
        default: return nil
        }
    }

    public var double: Double? {
        if case .double(let d) = unwrapped { return d }
        return nil
    }

    /// `ay` (or an `array` of bytes) as bytes (variants unwrapped).
    public var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let b): return b
        case .array("y", let items):
            var out: [UInt8] = []
            out.reserveCapacity(items.count)
            for case .byte(let b) in items { out.append(b) }
            return out.count == items.count ? out : nil
        default: return nil
        }
    }

    /// The elements of any array (`bytes` become `.byte` values).
    public var arrayElements: [DBusValue]? {
        switch unwrapped {
        case .array(_, let items): return items
        case .bytes(let b): return b.map(DBusValue.byte)
        default: return nil
        }
    }

    /// An array of strings (`as`, `ao`, `ag`).
    public var stringArray: [String]? {
        guard let items = arrayElements else { return nil }
        var out: [String] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let s = item.string else { return nil }
            out.append(s)
        }
        return out
    }

    /// A dictionary with string-like keys (`a{sv}`, `a{oa{...}}`), values kept as they are.
    public var stringKeyedDictionary: [String: DBusValue]? {
        guard case .dict(_, _, let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        out.reserveCapacity(entries.count)
        for entry in entries {
            guard let k = entry.key.string else { return nil }
            out[k] = entry.value
        }
        return out
    }

    public var unixFD: UnixFileDescriptor? {
        if case .unixFD(let fd) = unwrapped { return fd }
        return nil
    }

    /// Builds `a{sv}` from string keys; each value is wrapped in a variant.
    public static func stringVariantDict(_ values: [String: DBusValue]) -> DBusValue {
        .dict(keySignature: "s", valueSignature: "v",
              values.sorted { $0.key < $1.key }.map { DBusDictEntry(key: .string($0.key), value: .variant($0.value)) })
    }
}
