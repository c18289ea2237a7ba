import HealthModel
import Testing
@testable import Ingest

/// What a reconnect tells about a device adds to what was known; it does not erase it.
@Suite struct DeviceInfoTests {
    /// Failed before: a reconnect whose Device Information reads failed (seen in the lab after a bluetoothd
    /// restart) stored the device again without manufacturer, model and versions.
    @Test func aReconnectWithLessInformationKeepsWhatWasKnown() async {
        let (pipeline, sink) = makePipeline()
        let full = DeviceInfo(name: "Strap", manufacturer: "HRLab Instruments", model: "HRL-1", firmwareVersion: "1.4.2",
                              metadata: [MetadataKey.serialNumber: "HRL1-000042", MetadataKey.bodySensorLocation: "1"])
        await feed(pipeline, [connected(0, device: full), notification(1, hrm(60)),
                              .disconnected(address: addressA, reason: .linkLost, at: at(2)),
                              connected(3, device: DeviceInfo(name: "Strap", metadata: [MetadataKey.bodySensorLocation: "2"]))])
        let stored = sink.contents.devices[addressA]
        #expect(stored?.manufacturer == "HRLab Instruments")
        #expect(stored?.model == "HRL-1")
        #expect(stored?.firmwareVersion == "1.4.2")
        #expect(stored?.metadata[MetadataKey.serialNumber] == "HRL1-000042")
        #expect(stored?.metadata[MetadataKey.bodySensorLocation] == "2", "what the new connection read wins")
    }
}
