import Foundation
import Hummingbird
import HummingbirdTesting
import LiveFeed
import Testing
import TestBus
import Synchronization
import Web

/// The JSON API, the zones, the fan-out to browsers and the pages' escaping, without a browser.
@Suite struct WebAPITests {
    @Test(arguments: [(98, HeartZone.rest), (99, .grey), (100, .grey), (118, .grey), (119, .blue), (120, .blue), (140, .green), (160, .yellow), (178, .yellow), (179, .red), (180, .red)])
    func zonesFollowPercentOfHRmax(bpm: Int, zone: HeartZone) {
        // HRmax 200: 50 % = 100 bpm.
        let view = DeviceView(WebFixture.device("AA:00:00:00:00:01", bpm: bpm), hrmax: HRMaxTable(defaultBPM: 200))
        #expect(view.zone == zone)
        #expect(view.hrmaxPercent == Int((Double(bpm) / 2).rounded()))
    }

    @Test func devicesCarryHRmaxFromTheirOwnSettingOrTheDefault() async throws {
        let fixture = WebFixture(devices: [WebFixture.device("AA:00:00:00:00:01", name: "Ann", bpm: 150),
                                           WebFixture.device("AA:00:00:00:00:02", bpm: nil, state: .noSignal)],
                                 hrmaxDevices: ["aa:00:00:00:00:01=150"])
        try await fixture.web.application().test(.router) { client in
            try await client.execute(uri: "/api/devices?token=\(WebFixture.token)", method: .get) { response in
                #expect(response.status == .ok)
                let devices = try JSONDecoder().decode([DeviceView].self, from: Data(buffer: response.body))
                #expect(devices.map(\.name) == ["Ann", "AA:00:00:00:00:02"])
                #expect(devices[0].hrmax == 150 && devices[0].hrmaxSource == .device && devices[0].zone == .red)
                #expect(devices[1].hrmax == 200 && devices[1].hrmaxSource == .default && devices[1].zone == nil)
                #expect(devices[1].state == .noSignal)
            }
            try await client.execute(uri: "/api/sessions?token=\(WebFixture.token)", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("<b>earlier</b>"))
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            }
        }
    }

    @Test func theFanoutSendsASnapshotThenUpdatesAndSessionEvents() async throws {
        let fixture = WebFixture(devices: [WebFixture.device("AA:00:00:00:00:01")])
        let run = Task { try await fixture.fanout.run() }
        defer { run.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        var messages = fixture.fanout.subscribe(drop: {}).map { String(buffer: $0) }.makeAsyncIterator()
        let first = try #require(await messages.next())
        #expect(first.contains(#""type":"snapshot""#) && first.contains("AA:00:00:00:00:01"))
        fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: 171)))
        #expect(try #require(await messages.next()).contains(#""bpm":171"#))
        fixture.source.send(.beats(address: "AA:00:00:00:00:01", beats: [WatchBeat(time: Date(timeIntervalSince1970: 1), gap: true)]))
        #expect(try #require(await messages.next()).contains(#""beats":[{"gap":true,"t":1000}]"#))
        let session = ActiveSessionStatusFixture.make(label: "<script>alert(1)</script>")
        fixture.source.send(.sessions([session]))
        #expect(try #require(await messages.next()).contains(#""type":"session-started""#))
        #expect(try #require(await messages.next()).contains(#""type":"sessions""#))
        fixture.source.send(.sessions([]))
        #expect(try #require(await messages.next()).contains(#""type":"session-stopped""#))
    }

    /// A client gets `beats` only when it asks (`beats=1`), and only its device's with `device=`.
    @Test func aClientGetsWhatItsFilterAdmits() async throws {
        let fixture = WebFixture(devices: [WebFixture.device("AA:00:00:00:00:01"), WebFixture.device("AA:00:00:00:00:02")])
        let run = Task { try await fixture.fanout.run() }
        defer { run.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        var room = fixture.fanout.subscribe(LiveFilter(), drop: {}).map { String(buffer: $0) }.makeAsyncIterator()
        var overlay = fixture.fanout.subscribe(try LiveFilter(query: ["beats": "1", "device": "aa:00:00:00:00:02"]), drop: {})
            .map { String(buffer: $0) }.makeAsyncIterator()
        let roomSnapshot = try #require(await room.next()), overlaySnapshot = try #require(await overlay.next())
        #expect(roomSnapshot.contains("AA:00:00:00:00:01") && roomSnapshot.contains("AA:00:00:00:00:02"))
        #expect(!overlaySnapshot.contains("AA:00:00:00:00:01") && overlaySnapshot.contains("AA:00:00:00:00:02"))
        let beat = [WatchBeat(time: Date(timeIntervalSince1970: 1), gap: false)]
        fixture.source.send(.beats(address: "AA:00:00:00:00:01", beats: beat))
        fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: 101)))
        fixture.source.send(.beats(address: "AA:00:00:00:00:02", beats: beat))
        fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:02", bpm: 102)))
        // The room: both devices, no beats; the overlay: device 2's beats and device only.
        #expect(try #require(await room.next()).contains(#""bpm":101"#))
        #expect(try #require(await room.next()).contains(#""bpm":102"#))
        #expect(try #require(await overlay.next()).contains(#""type":"beats""#))
        #expect(try #require(await overlay.next()).contains(#""bpm":102"#))
        #expect(throws: HTTPError.self) { try LiveFilter(query: ["device": "<script>"]) }
    }

    @Test func aBrowserThatDoesNotReadIsDroppedAtItsBound() async throws {
        let fixture = WebFixture(clientBuffer: 16, window: .zero)
        let run = Task { try await fixture.fanout.run() }
        defer { run.cancel() }
        #expect(await eventually { fixture.source.subscribers == 1 })
        let dropped = DropFlag()
        let stuck = fixture.fanout.subscribe(drop: { dropped.set() })
        var reader = fixture.fanout.subscribe(drop: {}).map { String(buffer: $0) }.makeAsyncIterator()
        _ = await reader.next()
        // The reader that keeps up gets every update; the one that never reads is dropped once 16 wait for it.
        for bpm in 60..<100 {
            fixture.source.send(.device(WebFixture.device("AA:00:00:00:00:01", bpm: bpm)))
            #expect(try #require(await reader.next()).contains("\"bpm\":\(bpm)"))
        }
        #expect(await eventually { dropped.isSet })
        #expect(fixture.fanout.droppedCount == 1 && fixture.fanout.clientCount == 1)
        withExtendedLifetime(stuck) {}
    }

    @Test func userStringsInPagesAreEscaped() async throws {
        let fixture = WebFixture(token: nil, coach: false)
        try await fixture.web.application().test(.router) { client in
            try await client.execute(uri: "/overlay/%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E?colour=red%22%3E&size=99999", method: .get) { response in
                let page = String(buffer: response.body)
                #expect(!page.contains("<script>alert"))
                #expect(page.contains("&quot;&gt;&lt;SCRIPT&gt;"))
                #expect(page.contains("data-size=\"120\"") && page.contains("data-colour=\"\""))
                #expect(page.contains("class=\"overlay\""))
            }
            try await client.execute(uri: "/assets/room.js", method: .get) { response in
                let script = String(buffer: response.body)
                #expect(!script.contains("innerHTML"))
                #expect(response.headers[.contentType]?.hasPrefix("text/javascript") == true)
            }
        }
    }
}

final class DropFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
