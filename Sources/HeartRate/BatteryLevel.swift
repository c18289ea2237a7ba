/// Battery Level (0x2A19): remaining charge in percent, 0...100.
public struct BatteryLevel: Sendable, Hashable, Codable, CustomStringConvertible {
    public let percent: UInt8

    /// Creates a level; nil outside 0...100.
    public init?(percent: UInt8) {
        guard percent <= 100 else { return nil }
        self.percent = percent
    }

    /// Decodes a 0x2A19 value: one uint8 percentage. Values above 100 are `invalid-value` (the spec
    /// prohibits them); bytes after the first are ignored.
    public init(decoding bytes: some Collection<UInt8>) throws(DecodeError) {
        guard let first = bytes.first else { throw DecodeError(.empty, "battery level is empty") }
        guard first <= 100 else { throw DecodeError(.invalidValue, "battery level \(first) % is above 100 %") }
        self.percent = first
    }

    public var description: String { "\(percent) %" }
}
