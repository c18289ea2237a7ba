/// D-Bus names used with BlueZ (GATT UUIDs are `HeartRate.GATTUUID`).
public enum BlueZ {
    public static let service = "org.bluez"
    public static let adapter = "org.bluez.Adapter1"
    public static let device = "org.bluez.Device1"
    public static let gattService = "org.bluez.GattService1"
    public static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    public static let objectManager = "org.freedesktop.DBus.ObjectManager"
    public static let properties = "org.freedesktop.DBus.Properties"
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
    public var lastPathComponent: String { split(separator: "/").last.map(String.init) ?? self }

    /// `/org/bluez/hci0/dev_A0_9E_1A_12_34_56/service0010` → `A0:9E:1A:12:34:56`: the device an object path is
    /// under (BlueZ names device objects after their address), `nil` above device level.
    public var deviceAddress: String? {
        guard let component = split(separator: "/").first(where: { $0.hasPrefix("dev_") }) else { return nil }
        return component.dropFirst(4).replacingOccurrences(of: "_", with: ":").uppercased()
    }

    /// True if `self` is `prefix` or below it.
    public func isPath(under prefix: String) -> Bool { self == prefix || hasPrefix(prefix + "/") }
}
