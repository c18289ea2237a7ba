/// The Device Information Service (0x180A) string characteristics heartd reads.
public enum DeviceInformationField: String, Sendable, Hashable, Codable, CaseIterable {
    case manufacturerName = "manufacturer"
    case modelNumber = "model"
    case serialNumber = "serial"
    case hardwareRevision = "hardware"
    case firmwareRevision = "firmware"
    case softwareRevision = "software"

    /// The characteristic's UUID (0x2A29, 0x2A24, 0x2A25, 0x2A27, 0x2A26, 0x2A28).
    public var uuid: GATTUUID {
        switch self {
        case .manufacturerName: .manufacturerName
        case .modelNumber: .modelNumber
        case .serialNumber: .serialNumber
        case .hardwareRevision: .hardwareRevision
        case .firmwareRevision: .firmwareRevision
        case .softwareRevision: .softwareRevision
        }
    }

    /// The field for a characteristic UUID, or nil if it is not one of the six.
    public init?(uuid: GATTUUID) {
        guard let field = DeviceInformationField.allCases.first(where: { $0.uuid == uuid }) else { return nil }
        self = field
    }

    /// Decodes a UTF-8 string characteristic value. Never fails and never traps: the text stops at the first
    /// NUL (sensors often send fixed-size, NUL-padded buffers), surrounding whitespace and newlines are trimmed,
    /// and invalid UTF-8 is decoded lossily (U+FFFD). The result may be empty.
    public static func decodeString(_ bytes: some Collection<UInt8>) -> String {
        var text = Array(bytes.prefix { $0 != 0 })
        // ASCII whitespace (the common case) is trimmed on bytes; other Unicode whitespace after decoding.
        while let last = text.last, isASCIIWhitespace(last) { text.removeLast() }
        let start = text.firstIndex { !isASCIIWhitespace($0) } ?? text.endIndex
        let decoded = String(decoding: text[start...], as: UTF8.self)
        let scalars = decoded.unicodeScalars
        guard let first = scalars.first, let last = scalars.last else { return "" }
        guard first.properties.isWhitespace || last.properties.isWhitespace else { return decoded }
        return decoded.trimmingWhitespace()
    }
}

/// The Device Information strings known for one device; nil = not read (or empty).
public struct DeviceInformation: Sendable, Hashable, Codable {
    public var manufacturerName: String?
    public var modelNumber: String?
    public var serialNumber: String?
    public var hardwareRevision: String?
    public var firmwareRevision: String?
    public var softwareRevision: String?

    public init(manufacturerName: String? = nil, modelNumber: String? = nil, serialNumber: String? = nil,
                hardwareRevision: String? = nil, firmwareRevision: String? = nil, softwareRevision: String? = nil) {
        self.manufacturerName = manufacturerName
        self.modelNumber = modelNumber
        self.serialNumber = serialNumber
        self.hardwareRevision = hardwareRevision
        self.firmwareRevision = firmwareRevision
        self.softwareRevision = softwareRevision
    }

    public subscript(field: DeviceInformationField) -> String? {
        get {
            switch field {
            case .manufacturerName: manufacturerName
            case .modelNumber: modelNumber
            case .serialNumber: serialNumber
            case .hardwareRevision: hardwareRevision
            case .firmwareRevision: firmwareRevision
            case .softwareRevision: softwareRevision
            }
        }
        set {
            switch field {
            case .manufacturerName: manufacturerName = newValue
            case .modelNumber: modelNumber = newValue
            case .serialNumber: serialNumber = newValue
            case .hardwareRevision: hardwareRevision = newValue
            case .firmwareRevision: firmwareRevision = newValue
            case .softwareRevision: softwareRevision = newValue
            }
        }
    }

    /// Stores a raw characteristic value for `field`; an empty decoded string stores nil.
    public mutating func set(_ field: DeviceInformationField, from bytes: some Collection<UInt8>) {
        let text = DeviceInformationField.decodeString(bytes)
        self[field] = text.isEmpty ? nil : text
    }
}

private func isASCIIWhitespace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }

extension String {
    /// Trims Unicode whitespace and newlines at both ends without Foundation.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        guard let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
