import Foundation

/// A date as a query parameter takes it: ISO 8601 (`2026-11-22T08:00:00Z`), a day (`2026-11-22`, UTC), unix
/// seconds (text or a number), `now`, or relative to now (`-90s`, `-15m`, `-2h`, `-7d`). Kept as sent: the daemon
/// resolves it against its own clock (`QueryParameters.date`).
public enum QueryDate: Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    case text(String)
    case unixSeconds(Double)

    public init(stringLiteral value: String) { self = .text(value) }

    /// An absolute date, sent as ISO 8601 with milliseconds.
    public init(_ date: Date) { self = .text(ExportDates.iso(date)) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let seconds = try? c.decode(Double.self) { self = .unixSeconds(seconds) } else { self = .text(try c.decode(String.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .text(let text): try c.encode(text)
        case .unixSeconds(let seconds): try c.encode(seconds)
        }
    }
}

/// The values a `metadata` filter allows for one key: one string, or any of several (HealthKit's
/// `predicateForObjects(withMetadataKey:allowedValues:)`).
public enum AllowedValues: Sendable, Hashable, Codable {
    case one(String)
    case any([String])

    /// One value as a string, several as an array.
    public init(_ values: [String]) { self = values.count == 1 ? .one(values[0]) : .any(values) }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let one = try? c.decode(String.self) { self = .one(one) } else { self = .any(try c.decode([String].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .one(let value): try c.encode(value)
        case .any(let values): try c.encode(values)
        }
    }
}
