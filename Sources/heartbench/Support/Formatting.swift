import Foundation

/// Number formatting for tables: fixed decimals, thousands separators for counts.
enum Fmt {
    static func fixed(_ value: Double, _ decimals: Int = 2) -> String {
        String(format: "%.\(decimals)f", value)
    }

    static func ms(_ seconds: Double) -> String { fixed(seconds * 1000, 2) + " ms" }

    static func s(_ seconds: Double) -> String { fixed(seconds, 3) + " s" }

    /// 1234567 → "1,234,567".
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return value < 0 ? "-" + out : out
    }

    /// A rate with thousands separators: "1,234,567 /s".
    static func rate(_ perSecond: Double) -> String { count(Int(perSecond.rounded())) + " /s" }

    static func bytes(_ value: Int64) -> String { count(Int(value)) + " B" }

    static func mib(_ value: Int64) -> String { fixed(Double(value) / 1_048_576, 1) + " MiB" }
}
