/// Tiny decoders for the GATT values read at connect time (HeartRate may grow richer ones).
enum GattValues {
    /// A UTF-8 string characteristic (Device Information): trailing NULs and spaces dropped; nil if empty.
    static func string(_ bytes: [UInt8]) -> String? {
        var b = bytes[...]
        while let last = b.last, last == 0 { b = b.dropLast() }
        let s = String(decoding: b, as: UTF8.self).trimmingSpaces()
        return s.isEmpty ? nil : s
    }

    /// Battery Level 0x2A19: one byte, 0–100.
    static func batteryPercent(_ bytes: [UInt8]) -> Int? {
        guard let first = bytes.first, first <= 100 else { return nil }
        return Int(first)
    }

    /// Body Sensor Location 0x2A38: one byte, 0–6 (same numbering as HealthKit's sensor location).
    static func bodySensorLocation(_ bytes: [UInt8]) -> Int? {
        guard let first = bytes.first, first <= 6 else { return nil }
        return Int(first)
    }
}

extension String {
    func trimmingSpaces() -> String {
        var s = self[...]
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
