import Control
import Foundation
import HealthModel

/// Typed access to a request's params, with `invalid-params` errors that name the parameter.
public struct QueryParameters {
    let params: [String: JSONValue]
    let now: Date

    public init(_ params: [String: JSONValue], now: Date = Date()) {
        self.params = params
        self.now = now
    }

    public func string(_ key: String) throws(ControlError) -> String? {
        guard let v = params[key], !v.isNull else { return nil }
        guard let s = v.stringValue else { throw ControlError(.invalidParams, "'\(key)' must be a string") }
        return s
    }

    public func bool(_ key: String) throws(ControlError) -> Bool? {
        guard let v = params[key], !v.isNull else { return nil }
        guard let b = v.boolValue else { throw ControlError(.invalidParams, "'\(key)' must be true or false") }
        return b
    }

    public func int(_ key: String) throws(ControlError) -> Int? {
        guard let v = params[key], !v.isNull else { return nil }
        guard let i = v.intValue else { throw ControlError(.invalidParams, "'\(key)' must be an integer") }
        return i
    }

    public func double(_ key: String) throws(ControlError) -> Double? {
        guard let v = params[key], !v.isNull else { return nil }
        guard let d = v.doubleValue, d.isFinite else { throw ControlError(.invalidParams, "'\(key)' must be a number") }
        return d
    }

    public func requiredString(_ key: String) throws(ControlError) -> String {
        guard let s = try string(key) else { throw ControlError(.invalidParams, "'\(key)' is required") }
        return s
    }

    public func uuid(_ key: String = "uuid") throws(ControlError) -> UUID {
        let s = try requiredString(key)
        guard let u = UUID(uuidString: s) else { throw ControlError(.invalidParams, "'\(key)' is not a UUID: \(s)") }
        return u
    }

    /// A date: ISO 8601 (`2026-11-22T08:00:00Z`, or a plain `2026-11-22` day in UTC), unix seconds,
    /// `now`, or relative to now (`-90s`, `-15m`, `-2h`, `-7d`).
    public func date(_ key: String) throws(ControlError) -> Date? {
        guard let v = params[key], !v.isNull else { return nil }
        if let d = v.doubleValue { return Date(timeIntervalSince1970: d) }
        guard let s = v.stringValue, let date = QueryParameters.parseDate(s, now: now) else {
            throw ControlError(.invalidParams, "'\(key)' is not a date (ISO 8601, unix seconds, 'now' or '-2h'): \(params[key].map { "\($0)" } ?? "")")
        }
        return date
    }

    public static func parseDate(_ s: String, now: Date) -> Date? {
        if s == "now" { return now }
        if let seconds = Double(s) { return Date(timeIntervalSince1970: seconds) }
        if s.hasPrefix("-"), let unit = s.last, let n = Double(s.dropFirst().dropLast()) {
            let scale: Double? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3600
            case "d": 86400
            default: nil
            }
            if let scale { return now.addingTimeInterval(-n * scale) }
        }
        if let d = try? Date(s, strategy: .iso8601) { return d }
        if let d = try? Date(s, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)) { return d }
        if let d = try? Date(s + "T00:00:00Z", strategy: .iso8601) { return d }
        return nil
    }

    /// The sample type filter: a short name (`heart-rate`, `energy`, `hrv`, `heartbeat`) or an identifier.
    public func typeIdentifier(_ key: String = "type") throws(ControlError) -> String? {
        guard let s = try string(key) else { return nil }
        if s == "heartbeat" || s == "beats" || s == Sample.heartbeatSeriesIdentifier { return Sample.heartbeatSeriesIdentifier }
        guard let t = QuantityType.named(s) else {
            throw ControlError(.invalidParams, "unknown type '\(s)': use heart-rate, energy, hrv or heartbeat")
        }
        return t.identifier
    }

    public func quantityType(_ key: String = "type", default fallback: QuantityType) throws(ControlError) -> QuantityType {
        guard let s = try string(key) else { return fallback }
        guard let t = QuantityType.named(s) else {
            throw ControlError(.invalidParams, "unknown quantity type '\(s)': use heart-rate, energy or hrv")
        }
        return t
    }
}
