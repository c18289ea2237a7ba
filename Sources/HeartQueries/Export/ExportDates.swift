import Foundation

/// ISO 8601 with milliseconds in UTC (`2026-05-28T20:26:40.125Z`), the one date format of the CSV and JSON outputs
/// and the control protocol. heartd writes one per beat for every `watch` client, and live services read as many,
/// so this exact form is written and read by arithmetic on the civil date (Hinnant's days-from-civil); any other
/// form `parse` accepts goes through Foundation's ISO 8601 parser.
public enum ExportDates {
    static let style = Date.ISO8601FormatStyle.iso8601.year().month().day().dateSeparator(.dash)
        .time(includingFractionalSeconds: true).timeSeparator(.colon).timeZone(separator: .omitted)

    public static func iso(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1_000).rounded(.down)
        guard milliseconds.magnitude < 253_402_300_800_000 else { return date.formatted(style) }  // beyond year 9999
        let total = Int(milliseconds)
        let (days, dayMilliseconds) = floorDivision(total, 86_400_000)
        let (year, month, day) = civil(days)
        guard (0...9999).contains(year) else { return date.formatted(style) }
        // Written in place into the string's 24 bytes (an array per field was a third of the cost of a listing's dates).
        return String(unsafeUninitializedCapacity: 24) { out in
            var at = 0
            func put(_ value: Int, _ width: Int) {
                var rest = value
                for i in stride(from: at + width - 1, through: at, by: -1) {
                    out[i] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                at += width
            }
            func mark(_ c: Unicode.Scalar) {
                out[at] = UInt8(ascii: c)
                at += 1
            }
            put(year, 4); mark("-"); put(month, 2); mark("-"); put(day, 2)
            mark("T"); put(dayMilliseconds / 3_600_000, 2); mark(":")
            put(dayMilliseconds / 60_000 % 60, 2); mark(":"); put(dayMilliseconds / 1_000 % 60, 2)
            mark("."); put(dayMilliseconds % 1_000, 3); mark("Z")
            return at
        }
    }

    /// Reads what `iso` writes (and the same without fractional seconds, or any ISO 8601 date and time).
    public static func parse(_ text: String) -> Date? {
        utcMilliseconds(text) ?? (try? style.parse(text)) ?? (try? Date(text, strategy: .iso8601))
    }

    /// `iso`'s own form by arithmetic; nil for any other form.
    static func utcMilliseconds(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { b -> Date? in
            guard b.count == 24, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
                  b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"), b[19] == UInt8(ascii: "."), b[23] == UInt8(ascii: "Z")
            else { return nil }
            func digits(_ from: Int, _ count: Int) -> Int? {
                var value = 0
                for i in from..<from + count {
                    guard b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return nil }
                    value = value * 10 + Int(b[i] - UInt8(ascii: "0"))
                }
                return value
            }
            guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
                  let minute = digits(14, 2), let second = digits(17, 2), let millisecond = digits(20, 3),
                  (1...12).contains(month), (1...daysIn(month, year)).contains(day), hour < 24, minute < 60, second < 60
            else { return nil }
            let seconds = daysFromCivil(year, month, day) * 86_400 + hour * 3_600 + minute * 60 + second
            return Date(timeIntervalSince1970: Double(seconds * 1_000 + millisecond) / 1_000)
        }
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func daysFromCivil(_ year: Int, _ month: Int, _ day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }

    static func civil(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfYear - (153 * mp + 2) / 5 + 1)
    }

    private static func floorDivision(_ a: Int, _ b: Int) -> (Int, Int) {
        let q = a / b, r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
