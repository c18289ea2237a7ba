import Foundation

/// Small helpers to read the untyped JSON the raw client returns.
enum TestJSON {
    static func date(_ value: Any?) -> Date? {
        guard let s = value as? String else { return nil }
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: s) ?? ISO8601DateFormatter().date(from: s)
    }

    static func double(_ value: Any?) -> Double? {
        if let n = value as? NSNumber { return n.doubleValue }
        return nil
    }

    static func objects(_ value: Any?) -> [[String: Any]] { value as? [[String: Any]] ?? [] }

    /// `status.devices[0].counters.beats` (0 when absent).
    static func beats(inStatus status: [String: Any]) -> Int {
        let devices = objects(status["devices"])
        return devices.reduce(0) { $0 + (($1["counters"] as? [String: Any])?["beats"] as? Int ?? 0) }
    }

    /// The notifications capture received per device (`status.capture.devices[].notifications`), by address.
    static func notifications(inStatus status: [String: Any]) -> [String: Int] {
        objects((status["capture"] as? [String: Any])?["devices"]).reduce(into: [:]) {
            $0[$1["address"] as? String ?? "?"] = $1["notifications"] as? Int ?? 0
        }
    }

    /// Unix seconds, for query params.
    static func unix(_ date: Date) -> Double { date.timeIntervalSince1970 }
}
