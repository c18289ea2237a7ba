import Control
import Foundation

/// Codable results to and from the control protocol's `JSONValue`, with one date format everywhere (ISO 8601,
/// milliseconds, UTC): the daemon encodes typed results (`DaemonStatus`, samples), heartctl decodes the same types.
public enum JSONBridge {
    public static func value(_ encodable: some Encodable) -> JSONValue {
        // Encoding our own plain structs fails only on a non-finite double; `null` marks that rather than trapping.
        (try? encoder.encode(encodable)) ?? .null
    }

    private static let encoder = JSONValueEncoder(date: { .string(ExportDates.iso($0)) })

    /// A request's params as the wire carries them: `value` of a `Codable` params type, an object.
    public static func params(_ encodable: some Encodable) -> [String: JSONValue] {
        value(encodable).objectValue ?? [:]
    }

    /// The typed value of a result; throws `DecodingError` when the JSON does not have the type's shape.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try decoder.decode(type, from: value)
    }

    /// The typed value of a result's JSON text (`JSONValueDecoder.decode(_:text:)`): what `decode(_:from:)` of its
    /// parsed value gives, without the tree for heartd's plain lines.
    public static func decode<T: Decodable>(_ type: T.Type, text: [UInt8]) throws -> T {
        try decoder.decode(type, text: text)
    }

    private static let decoder = JSONValueDecoder(date: { value, codingPath in
        guard case .string(let text) = value else {
            throw DecodingError.typeMismatch(Date.self, .init(codingPath: codingPath, debugDescription: "a date must be a string"))
        }
        guard let date = ExportDates.parse(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
        }
        return date
    })
}
