import HealthModel

/// The JSON text of the store's small JSON columns (metadata, device), written directly: Foundation's
/// `JSONEncoder` cost more than the rest of a checkpoint (measured: a third of the store's CPU while streaming).
/// The same fields as the synthesized `Codable` output (nil fields left out, keys sorted), read back with
/// `JSONDecoder` — metadata written here (no escapes) read back by `flatStrings` instead.
enum JSONText {
    /// `{"key":value,…}` from already-encoded values, keys in ascending order.
    static func object(_ members: [(key: String, json: String)]) -> String {
        var out = "{"
        for (i, m) in members.sorted(by: { $0.key < $1.key }).enumerated() {
            if i > 0 { out += "," }
            out += string(m.key)
            out += ":"
            out += m.json
        }
        return out + "}"
    }

    static func metadata(_ metadata: Metadata) -> String {
        object(metadata.map { (key: $0.key, json: string($0.value)) })
    }

    static func device(_ d: DeviceInfo) -> String {
        var members: [(key: String, json: String)] = [(key: "metadata", json: metadata(d.metadata))]
        func add(_ key: String, _ value: String?) { if let value { members.append((key: key, json: string(value))) } }
        add("name", d.name)
        add("manufacturer", d.manufacturer)
        add("model", d.model)
        add("hardwareVersion", d.hardwareVersion)
        add("firmwareVersion", d.firmwareVersion)
        add("softwareVersion", d.softwareVersion)
        add("localIdentifier", d.localIdentifier)
        add("udiDeviceIdentifier", d.udiDeviceIdentifier)
        return object(members)
    }

    /// A JSON string literal (RFC 8259 escapes; everything else as UTF-8). A string with nothing to escape (names,
    /// versions, addresses: nearly all) is copied whole; appending it scalar by scalar was most of the cost of a
    /// series' first checkpoint.
    static func string(_ s: String) -> String {
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            return "\"" + s + "\""
        }
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The object `metadata` writes when no key or value needed an escape — `{"key":"value",…}`, nothing between the
    /// tokens — read without `JSONDecoder`, which cost a quarter of a year's listing (`heartctl series --all`);
    /// nil for any other text (escapes, whitespace, other values, a repeated key): the caller decodes that in full.
    static func flatStrings(_ text: String) -> [String: String]? {
        var text = text
        return text.withUTF8 { bytes -> [String: String]? in
            let n = bytes.count
            guard n >= 2, bytes[0] == UInt8(ascii: "{"), bytes[n - 1] == UInt8(ascii: "}") else { return nil }
            var result: [String: String] = [:]
            if n == 2 { return result }
            var i = 1
            // A string without escapes or control characters at `i`, and `i` after its closing quote.
            func string() -> String? {
                guard i < n, bytes[i] == UInt8(ascii: "\"") else { return nil }
                var j = i + 1
                while j < n, bytes[j] != UInt8(ascii: "\"") {
                    if bytes[j] == UInt8(ascii: "\\") || bytes[j] < 0x20 { return nil }
                    j += 1
                }
                guard j < n else { return nil }
                defer { i = j + 1 }
                return String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<j]), as: UTF8.self)
            }
            while true {
                guard let key = string(), i < n, bytes[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                guard let value = string(), result.updateValue(value, forKey: key) == nil, i < n else { return nil }
                if bytes[i] == UInt8(ascii: ",") {
                    i += 1
                } else {
                    return bytes[i] == UInt8(ascii: "}") && i == n - 1 ? result : nil
                }
            }
        }
    }
}
