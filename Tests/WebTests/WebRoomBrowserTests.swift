import Foundation
import Hummingbird
import LiveFeed
import Logging
import ServiceLifecycle
import Synchronization
import Testing
import TestBus
import Web

/// The room page in headless Chromium against heartd-web's application in this process, fed by a stub live source:
/// four sensors sweeping through the zones, one named with HTML and script, one that falls silent on request.
@Suite(.serialized) struct WebRoomBrowserTests {
    static let silent = "AA:00:00:00:00:04"
    static let xssDevice = "AA:00:00:00:00:03"
    static let xssName = #"<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>Bea"#

    @Test func tilesFollowHeartRateZonesAndSilence() async throws {
        let fixture = WebFixture(token: BrowserScript.token, coach: false)
        let stopFile = "/tmp/hw-stop-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: stopFile) }
        let port = Mutex<Int?>(nil)
        let app = try fixture.web.application { bound in port.withLock { $0 = bound } }
        let group = ServiceGroup(services: [fixture.fanout, app], logger: Logger(label: "web-browser-test"))
        let server = Task { try await group.run() }
        let feeder = Task { await Self.feed(fixture.source, stopFile: stopFile) }
        defer {
            feeder.cancel()
            server.cancel()
        }
        #expect(await eventually(timeout: 60) { port.withLock { $0 } != nil })
        let url = "http://127.0.0.1:\(try #require(port.withLock { $0 }))"
        let results = try await BrowserScript.run(url: url, ["live", "names", "silence"],
                                                  extra: ["--stop-file", stopFile, "--silent-device", Self.silent,
                                                          "--xss-device", Self.xssDevice, "--xss-name", Self.xssName])
        #expect(results.contains(#""failed": []"#))
        await group.triggerGracefulShutdown()
    }

    /// Every 300 ms a new heart rate per sensor, sweeping 80…195 bpm (HRmax 200: every zone); the silent sensor stops
    /// once the browser script writes `stopFile`.
    static func feed(_ source: StubLiveSource, stopFile: String) async {
        let addresses = (1...4).map { "AA:00:00:00:00:0\($0)" }
        var tick = 0
        while !Task.isCancelled {
            let stopped = FileManager.default.fileExists(atPath: stopFile)
            for (index, address) in addresses.enumerated() where !(stopped && address == silent) {
                let bpm = 80 + (tick * 7 + index * 29) % 116
                source.send(.device(WebFixture.device(address, name: address == xssDevice ? xssName : "Sensor \(index + 1)", bpm: bpm)))
                source.send(.beats(address: address, beats: [WatchBeat(time: Date(), gap: false)]))
            }
            tick += 1
            try? await Task.sleep(for: .milliseconds(300))
        }
    }
}
