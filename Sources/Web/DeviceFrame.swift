import NIOCore

/// The `device` message, the one sent for every notification, written straight into its buffer: the same JSON as
/// `LiveMessage.json()` makes through `JSONEncoder` (sorted keys, absent values left out; `LiveMessageTests` holds
/// the two equal), at a fraction of the CPU. Every other message, rarer, goes through `JSONEncoder`.
struct DeviceFrame {
    private(set) var buffer = ByteBuffer()

    init(_ device: DeviceView) {
        buffer.reserveCapacity(512)
        raw(#"{"device":{"address":"#)
        string(device.address)
        if let battery = device.battery { member("battery", battery) }
        if let bpm = device.bpm { member("bpm", bpm) }
        raw(#","connected":"#)
        raw(device.connected ? "true" : "false")
        if let contact = device.contact {
            raw(#","contact":"#)
            raw(contact ? "true" : "false")
        }
        if let alpha1 = device.dfaAlpha1 { member("dfaAlpha1", alpha1) }
        if let effort = device.effort { self.effort(effort) }
        member("hrmax", device.hrmax)
        if let percent = device.hrmaxPercent { member("hrmaxPercent", percent) }
        member("hrmaxSource", device.hrmaxSource.rawValue)
        if let last = device.lastNotification { member("lastNotification", Int(last)) }
        member("name", device.name)
        if let rmssd = device.rmssdMs { member("rmssdMs", rmssd) }
        member("state", device.state.rawValue)
        if let zone = device.zone { member("zone", zone.rawValue) }
        raw(#"},"type":"device"}"#)
    }

    private mutating func effort(_ effort: EffortView) {
        raw(#","effort":{"#)
        var first = true
        if let kcal = effort.kcal {
            raw(#""kcal":"#)
            raw(String(kcal))
            first = false
        }
        raw(first ? #""points":"# : #","points":"#)
        raw(Self.number(effort.points))
        raw(#","zoneSeconds":{"#)
        for (index, key) in effort.zoneSeconds.keys.sorted().enumerated() {
            if index > 0 { raw(",") }
            string(key)
            raw(":")
            raw(String(effort.zoneSeconds[key] ?? 0))
        }
        raw("}}")
    }

    private mutating func member(_ key: StaticString, _ value: Int) {
        name(key)
        raw(String(value))
    }

    private mutating func member(_ key: StaticString, _ value: Double) {
        name(key)
        raw(Self.number(value))
    }

    private mutating func member(_ key: StaticString, _ value: String) {
        name(key)
        string(value)
    }

    private mutating func name(_ key: StaticString) {
        raw(",\"")
        buffer.writeStaticString(key)
        raw("\":")
    }

    private mutating func raw(_ text: String) { buffer.writeString(text) }

    /// A number as `JSONEncoder` writes it: the shortest form that reads back the same, without a trailing ".0".
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        let text = value.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    /// A JSON string: quotes, backslashes and control characters escaped, everything else as it is (UTF-8).
    private mutating func string(_ text: String) {
        buffer.writeInteger(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw(#"\""#)
            case UInt8(ascii: "\\"): raw(#"\\"#)
            case UInt8(ascii: "\n"): raw(#"\n"#)
            case UInt8(ascii: "\r"): raw(#"\r"#)
            case UInt8(ascii: "\t"): raw(#"\t"#)
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                raw(#"\u00"#)
                buffer.writeInteger(hex[Int(byte >> 4)])
                buffer.writeInteger(hex[Int(byte & 0xF)])
            default: buffer.writeInteger(byte)
            }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }
}
