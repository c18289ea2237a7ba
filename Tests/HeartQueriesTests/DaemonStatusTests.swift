import Control
import Foundation
import HealthModel
@testable import HeartQueries
import Ingest
import SourceEvents
import Testing

/// `status` is one type at both ends of the socket: what the daemon encodes, heartctl decodes into the same
/// value, and the JSON keeps the documented shape (docs/CONTROL.md).
@Suite struct DaemonStatusTests {
    static func sample(capture: CaptureReport) -> DaemonStatus {
        var counters = IngestCounters()
        counters.notifications = 12
        counters.gapsByRule = [GapReason.connection.rawValue: 1]
        let device = DeviceStatus(address: "A0:9E:1A:12:34:56", connected: true, device: DeviceInfo(name: "Polar H10"),
                                  lastNotification: Date(timeIntervalSince1970: 1_800_000_000.25), currentBPM: 61,
                                  batteryPercent: 87, beatsInOpenSeries: 40, seriesFinished: 2, counters: counters)
        var sink = SinkStatus()
        sink.lastError = "disk I/O error"
        sink.queuedBeats = 300
        return DaemonStatus(version: "1.2.3", protocolVersion: ControlProtocol.version, pid: 42, mode: .bluez,
                            started: Date(timeIntervalSince1970: 1_800_000_000), uptimeSeconds: 60, capture: capture,
                            devices: [device], store: StoreReport(path: "/var/lib/heartd/heartd.sqlite", sizeBytes: 4096,
                                                                  sink: sink),
                            watchers: 1)
    }

    @Test func bluezStatusRoundTripsWithItsDocumentedShape() throws {
        let bluez = CaptureStatus(bluezAvailable: true, bluetoothdRestarts: 1, mirrorRepairs: 0, connectedInferred: 2,
                                  devices: [DeviceCaptureStatus(address: "A0:9E:1A:12:34:56", adapter: "hci0",
                                                                state: .streaming, subscribeMode: .acquireNotify),
                                            DeviceCaptureStatus(address: "A0:9E:1A:12:34:57", adapter: "hci0", state: .streaming,
                                                                subscribeMode: .startNotify, subscribeFallback: .notifyAcquired,
                                                                subscribeFallbacks: 3)],
                                  adapters: [AdapterCaptureStatus(name: "hci0", powered: true, assigned: 1, connected: 1, limit: 5,
                                                                  powerState: .on),
                                             AdapterCaptureStatus(name: "hci1", powered: true, assigned: 0, connected: 6,
                                                                  limit: 6, limitLearned: true),
                                             AdapterCaptureStatus(name: "hci2", powered: false, assigned: 0, connected: 0,
                                                                  limit: 5, powerState: .offBlocked,
                                                                  offSince: Date(timeIntervalSince1970: 1_800_000_000.5))])
        let status = Self.sample(capture: CaptureReport(source: .bluez, allowList: ["A0:9E:1A:12:34:56"], bluez: bluez))
        let json = JSONBridge.value(status)
        #expect(try JSONBridge.decode(DaemonStatus.self, from: json) == status)
        #expect(json["uptime_s"] == .double(60) || json["uptime_s"] == .int(60))
        #expect(json["protocol"] == .string(ControlProtocol.version))
        #expect(json["store"]?["size_bytes"] == .int(4096))
        #expect(json["store"]?["sink"]?["lastError"] == .string("disk I/O error"))
        // The client's fields sit beside `source` (capture.devices[], capture.mirrorRepairs …).
        #expect(json["capture"]?["source"] == .string("bluez"))
        #expect(json["capture"]?["allow_list"] == .array([.string("A0:9E:1A:12:34:56")]))
        #expect(json["capture"]?["connectedInferred"] == .int(2))
        #expect(json["capture"]?["devices"]?.arrayValue?.first?["subscribeMode"] == .string("acquire-notify"))
        // A connection whose AcquireNotify BlueZ refused: StartNotify, why, and how many connections fell back.
        let fellBack = json["capture"]?["devices"]?.arrayValue?.last
        #expect(fellBack?["subscribeMode"] == .string("start-notify"))
        #expect(fellBack?["subscribeFallback"] == .string("notify-acquired"))
        #expect(fellBack?["subscribeFallbacks"] == .int(3))
        // Each adapter's connections and limit: capture.adapters[].
        let adapters = json["capture"]?["adapters"]?.arrayValue ?? []
        #expect(adapters.map { $0["name"] } == [.string("hci0"), .string("hci1"), .string("hci2")])
        #expect(adapters[1]["connected"] == .int(6) && adapters[1]["limit"] == .int(6))
        #expect(adapters[1]["limitLearned"] == .bool(true))
        // An adapter present but off: BlueZ's PowerState (off-blocked: rfkill) and since when heartd has seen it off;
        // neither is there for one that is powered (BlueZ before 5.66 exports no PowerState).
        #expect(adapters[2]["powered"] == .bool(false) && adapters[2]["powerState"] == .string("off-blocked"))
        #expect(adapters[2]["offSince"] == .string("2027-01-15T08:00:00.500Z"))
        #expect(adapters[0]["powerState"] == .string("on") && adapters[0]["offSince"] == nil)
        #expect(adapters[1]["powerState"] == nil)
        #expect(json["devices"]?.arrayValue?.first?["lastNotification"] == .string("2027-01-15T08:00:00.250Z"))
    }

    @Test func simulatorStatusHasOnlyItsSource() throws {
        let status = Self.sample(capture: CaptureReport(source: .simulator))
        let json = JSONBridge.value(status)
        #expect(json["capture"] == .object(["source": .string("simulator")]))
        #expect(try JSONBridge.decode(DaemonStatus.self, from: json) == status)
    }

    @Test func aStatusOfAnotherShapeIsAnError() {
        #expect(throws: DecodingError.self) {
            try JSONBridge.decode(DaemonStatus.self, from: .object(["version": .string("1")]))
        }
    }
}
