@testable import Capture
import HeartRate
import Testing

/// Capture policy without I/O: which devices are wanted (the reconnect backoff is `Timers.Backoff`, in TimersTests).
@Suite struct CapturePolicyTests {
    @Test func policyWants() {
        let p = CapturePolicy(adapters: ["hci0"], allowList: ["aa:bb:cc:dd:ee:ff"])
        #expect(p.wants(address: "AA:BB:CC:DD:EE:FF", uuids: []))
        #expect(!p.wants(address: "11:22:33:44:55:66", uuids: [GATTUUID.heartRateService.uuidString]))
        #expect(CapturePolicy(autoHeartRate: true).wants(address: "11:22:33:44:55:66", uuids: [GATTUUID.heartRateService.uuidString]))
        #expect(p.allows(adapterPath: "/org/bluez/hci0"))
        #expect(!p.allows(adapterPath: "/org/bluez/hci1"))
    }

    /// The connect-time values are read with the HeartRate decoders (one set of GATT decoders): the body sensor
    /// location keeps only HealthKit's locations.
    @Test func deviceInformationPendingUsesTheGATTUUIDs() {
        var view = DeviceView(active: true, exists: true, adapterPowered: true, connected: true, servicesResolved: true,
                              name: nil, appearance: nil, characteristics: [:],
                              serviceUUIDs: [GATTUUID.deviceInformationService.uuidString])
        #expect(view.deviceInformationPending)
        view.characteristics[GATTUUID.modelNumber.uuidString] = (path: "/x/char1", flags: ["read"])
        #expect(!view.deviceInformationPending)
    }
}
