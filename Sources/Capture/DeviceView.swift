import BlueZ
import HeartRate

/// What a device session needs to know about its device, taken from the mirror.
struct DeviceView: Sendable {
    /// False when the manager has already ordered this session to stop.
    var active: Bool
    var exists: Bool
    var adapterPowered: Bool
    var connected: Bool
    var servicesResolved: Bool
    var name: String?
    var appearance: UInt16?
    /// lower-case UUID → (path, flags)
    var characteristics: [String: (path: String, flags: [String])]
    /// The device's `UUIDs` (services it offers), lower-case.
    var serviceUUIDs: [String] = []

    /// Whether the device offers a Device Information service whose characteristics are not exported yet.
    var deviceInformationPending: Bool {
        serviceUUIDs.contains(GATTUUID.deviceInformationService.uuidString)
            && !DeviceInformationField.allCases.contains { characteristics[$0.uuid.uuidString] != nil }
    }
}
