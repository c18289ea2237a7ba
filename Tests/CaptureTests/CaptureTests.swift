@testable import Capture
import BlueZ
import DBus
import Foundation
import SourceEvents
import HealthModel
import Testing

/// Capture against the fake bluetoothd: discovery, connection, the device's reads, notifications (StartNotify and
/// AcquireNotify), reconnects, silent stops, two sensors at once, and the allow-list.
@Suite struct CaptureTests {
    @Test func discoverConnectReadInfoAndNotify() async throws {
        let h = try await Harness(known: false, policy: fastPolicy())
        h.start()
        let events = try await h.log.wait("connected") { !$0.connected(addrA).isEmpty }
        let info = try #require(events.connected(addrA).first as DeviceInfo?)
        #expect(info.localIdentifier == addrA)
        #expect(info.name == "Fake HR 1")
        #expect(info.manufacturer == "HRLab Instruments")
        #expect(info.model == "HRL-1")
        #expect(info.hardwareVersion == "rev-B")
        #expect(info.firmwareVersion == "1.4.2")
        #expect(info.softwareVersion == "fake 1")
        #expect(info.metadata[MetadataKey.serialNumber] == "SN-0001")
        #expect(info.metadata[MetadataKey.bodySensorLocation] == "1")
        #expect(info.metadata[BlueZMetadataKey.appearance] == "heartRateBelt")
        #expect(info.metadata[BlueZMetadataKey.adapter] == "hci0")
        try await h.log.wait("battery") { $0.batteries(addrA) == [87] }
        let stats = try await h.waitStats(addrA, "subscribed") { $0["subscribed"] == 1 }
        #expect(stats["discovery_starts"] ?? 0 >= 1)
        try await h.notify(addrA, hrPayload)
        try await h.notify(addrA, [0x00, 61])
        try await h.log.wait("notifications") { $0.notifications(addrA) == [hrPayload, [0x00, 61]] }
        // the wanted device is present: discovery is stopped again
        _ = try await h.waitStats(addrA, "discovery off") { $0["discovering"] == 0 }
        try await h.ctl("Battery", [.string(addrA), .byte(55)])
        try await h.log.wait("battery notify") { $0.batteries(addrA) == [87, 55] }
        let status = h.capture.status()
        #expect(status.bluezAvailable)
        let dev = try #require(status.devices.first { $0.address == addrA })
        #expect(dev.notifications == 2)
        #expect(dev.state == .streaming)
        #expect(dev.subscribeMode == .startNotify)
        #expect(dev.batteryPercent == 55)
        await h.stop()
        #expect(h.log.all.disconnects(addrA) == [.captureStopped])
    }

    @Test func disconnectThenReconnectResumes() async throws {
        let h = try await Harness(policy: fastPolicy())
        h.start()
        _ = try await h.waitStats(addrA, "subscribed") { $0["subscribed"] == 1 }
        try await h.notify(addrA, [0x00, 70])
        try await h.log.wait("first value") { $0.notifications(addrA).count == 1 }
        try await h.ctl("DropLink", [.string(addrA)])
        try await h.log.wait("disconnect") { $0.disconnects(addrA) == [.linkLost] }
        try await h.log.wait("reconnect") { $0.connected(addrA).count == 2 }
        _ = try await h.waitStats(addrA, "subscribed again") { $0["subscribed"] == 1 && $0["connect"] == 2 }
        try await h.notify(addrA, [0x00, 71])
        try await h.log.wait("value after reconnect") { $0.notifications(addrA) == [[0x00, 70], [0x00, 71]] }
        #expect(h.capture.status().devices.first?.reconnects == 1)
        await h.stop()
    }

    @Test func silentStopResubscribesThenReconnects() async throws {
        let h = try await Harness(policy: fastPolicy(silent: 0.4))
        h.start()
        // First recovery: StopNotify + StartNotify on the same link.
        _ = try await h.waitStats(addrA, "re-subscribe") { ($0["stop_notify"] ?? 0) >= 1 && ($0["start_notify"] ?? 0) >= 2 }
        // Still silent: Disconnect and reconnect.
        try await h.log.wait("silent-stop disconnect") { $0.disconnects(addrA).contains(.silentStop) }
        _ = try await h.waitStats(addrA, "reconnect") { ($0["disconnect"] ?? 0) >= 1 && ($0["connect"] ?? 0) >= 2 }
        #expect(h.capture.status().devices.first.map { $0.silentStopRecoveries >= 1 } == true)
        await h.stop()
    }

    @Test func twoSensorsAreIndependent() async throws {
        let h = try await Harness(devices: [addrA, addrB], policy: fastPolicy([addrA, addrB]))
        h.start()
        _ = try await h.waitStats(addrA, "A subscribed") { $0["subscribed"] == 1 }
        _ = try await h.waitStats(addrB, "B subscribed") { $0["subscribed"] == 1 }
        let a = try #require(h.log.all.connected(addrA).first as DeviceInfo?)
        let b = try #require(h.log.all.connected(addrB).first as DeviceInfo?)
        #expect(a.metadata[MetadataKey.serialNumber] == "SN-0001")
        #expect(b.metadata[MetadataKey.serialNumber] == "SN-0002")
        try await h.notify(addrA, [0x00, 60])
        try await h.notify(addrB, [0x00, 90])
        try await h.log.wait("both") { $0.notifications(addrA) == [[0x00, 60]] && $0.notifications(addrB) == [[0x00, 90]] }
        try await h.ctl("DropLink", [.string(addrA)])
        try await h.log.wait("A dropped") { $0.disconnects(addrA) == [.linkLost] }
        try await h.notify(addrB, [0x00, 91])
        try await h.log.wait("B continues") { $0.notifications(addrB) == [[0x00, 90], [0x00, 91]] }
        #expect(h.log.all.disconnects(addrB).isEmpty)
        try await h.log.wait("A back") { $0.connected(addrA).count == 2 }
        await h.stop()
    }

    @Test func wrongTypedValueIsCountedNotFatal() async throws {
        let h = try await Harness(policy: fastPolicy())
        h.start()
        _ = try await h.waitStats(addrA, "subscribed") { $0["subscribed"] == 1 }
        try await h.ctl("NotifyWrongType", [.string(addrA)])
        try await h.notify(addrA, [0x00, 65])
        try await h.log.wait("good value") { $0.notifications(addrA) == [[0x00, 65]] }
        let dev = try #require(h.capture.status().devices.first)
        #expect(dev.malformed == 1)
        #expect(dev.notifications == 1)
        await h.stop()
    }

    @Test func acquireNotifyDeliversThroughTheSocket() async throws {
        let h = try await Harness(policy: fastPolicy(mode: .acquireNotify))
        h.start()
        _ = try await h.waitStats(addrA, "fd") { $0["fd_open"] == 1 }
        for i in 0..<50 { try await h.notify(addrA, [0x00, UInt8(60 + i)]) }
        try await h.log.wait("values") { $0.notifications(addrA).count == 50 }
        #expect(h.log.all.notifications(addrA) == (0..<50).map { [0x00, UInt8(60 + $0)] })
        let stats = try await h.stats(addrA)
        #expect(stats["acquire_notify"] == 1)
        #expect(stats["start_notify"] == 0)
        #expect(h.capture.status().devices.first?.subscribeMode == .acquireNotify)
        #expect(h.capture.status().devices.first?.subscribeFallback == nil)
        #expect(h.capture.status().devices.first?.subscribeFallbacks == 0)
        // BlueZ drops the link: the socket closes, the session reconnects and acquires again.
        try await h.ctl("DropLink", [.string(addrA)])
        _ = try await h.waitStats(addrA, "fd again") { $0["acquire_notify"] == 2 && $0["fd_open"] == 1 }
        try await h.notify(addrA, [0x00, 99])
        try await h.log.wait("value after reacquire") { $0.notifications(addrA).last == [0x00, 99] }
        await h.stop()
        _ = try? await h.waitStats(addrA, "fd closed on stop", timeout: 3) { $0["fd_open"] == 0 }
    }

    @Test func autoHeartRateFindsAnyHeartRateSensor() async throws {
        let h = try await Harness(known: false, policy: fastPolicy([], auto: true))
        h.start()
        try await h.log.wait("connected") { !$0.connected(addrA).isEmpty }
        await h.stop()
    }

    @Test func deviceOutsideThePolicyIsIgnored() async throws {
        let h = try await Harness(devices: [addrA, addrB], policy: fastPolicy([addrB]))
        h.start()
        try await h.log.wait("B connected") { !$0.connected(addrB).isEmpty }
        let statsA = try await h.stats(addrA)
        #expect(statsA["connect"] == 0)
        await h.stop()
    }
}
