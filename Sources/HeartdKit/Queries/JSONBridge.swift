import Control
import Foundation

/// Turns Codable results into the control protocol's `JSONValue`, with one date format everywhere
/// (ISO 8601, milliseconds, UTC).
enum JSONBridge {
    static func value(_ encodable: some Encodable) -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(ExportDates.iso(date))
        }
        // Encoding our own plain structs cannot fail; `null` marks a programming error rather than trapping.
        guard let data = try? encoder.encode(encodable),
              let value = try? JSONDecoder().decode(JSONValue.self, from: data) else { return .null }
        return value
    }
}
