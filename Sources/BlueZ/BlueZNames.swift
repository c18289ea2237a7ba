/// D-Bus names and GATT UUIDs used with BlueZ.
enum BlueZ {
    static let service = "org.bluez"
    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let gattService = "org.bluez.GattService1"
    static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    static let objectManager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"
}

/// 16-bit SIG UUIDs as BlueZ spells them (lower-case 128-bit strings).
enum GattUUID {
    static func full(_ short: UInt16) -> String {
        let hex = String(short, radix: 16)
        return "0000" + String(repeating: "0", count: 4 - hex.count) + hex + "-0000-1000-8000-00805f9b34fb"
    }
    static let heartRateService = full(0x180D)
    static let heartRateMeasurement = full(0x2A37)
    static let bodySensorLocation = full(0x2A38)
    static let batteryLevel = full(0x2A19)
    static let manufacturerName = full(0x2A29)
    static let modelNumber = full(0x2A24)
    static let serialNumber = full(0x2A25)
    static let hardwareRevision = full(0x2A27)
    static let firmwareRevision = full(0x2A26)
    static let softwareRevision = full(0x2A28)
    static let deviceInformationService = full(0x180A)
    static let deviceInformation = [manufacturerName, modelNumber, serialNumber, hardwareRevision, firmwareRevision,
                                    softwareRevision]
}

/// Metadata keys the BlueZ client adds to `DeviceInfo.metadata` (besides HealthModel's `MetadataKey`).
public enum BlueZMetadataKey {
    /// Appearance class from the advertisement, e.g. `heartRateBelt` (see `AppearanceClass`).
    public static let appearance = "HeartdAppearance"
    /// Raw 16-bit appearance value, decimal.
    public static let appearanceValue = "HeartdAppearanceValue"
    /// The adapter the device was captured on, e.g. `hci0`.
    public static let adapter = "HeartdAdapter"
}

extension String {
    /// `/org/bluez/hci0/dev_AA` → `hci0` (the last component of an adapter path).
    var lastPathComponent: String { split(separator: "/").last.map(String.init) ?? self }

    /// `/org/bluez/hci0/dev_A0_9E_1A_12_34_56/service0010` → `A0:9E:1A:12:34:56`: the device an object path is
    /// under (BlueZ names device objects after their address), `nil` above device level.
    var deviceAddress: String? {
        guard let component = split(separator: "/").first(where: { $0.hasPrefix("dev_") }) else { return nil }
        return component.dropFirst(4).replacingOccurrences(of: "_", with: ":").uppercased()
    }

    /// True if `self` is `prefix` or below it.
    func isPath(under prefix: String) -> Bool { self == prefix || hasPrefix(prefix + "/") }
}
