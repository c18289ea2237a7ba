import Foundation
import LiveFeed
import Testing
import Web

/// The hand-written `device` frame (`DeviceFrame`) is the JSON `JSONEncoder` makes of the same message: every
/// member, absent ones left out, strings escaped.
@Suite struct LiveMessageTests {
    static func views() -> [DeviceView] {
        var full = DeviceView(WebFixture.device("AA:00:00:00:00:01", name: "Ann \"<script>\" \\ \n\t\u{1}é✓", bpm: 151),
                              hrmax: HRMaxTable(defaultBPM: 190))
        full.dfaAlpha1 = 0.75
        full.rmssdMs = 42.3
        var effort = EffortView(EffortTally(person: EffortTally.Person(hrmax: 190, ageYears: 40, weightKg: 70, sex: nil)))
        effort.points = 12.5
        effort.kcal = 87
        effort.zoneSeconds = ["red": 12, "blue": 300, "green": 61]
        full.effort = effort
        var bare = DeviceView(WebFixture.device("AA:00:00:00:00:02", bpm: nil, state: .noSignal), hrmax: HRMaxTable(defaultBPM: 200))
        bare.battery = nil
        bare.contact = nil
        bare.lastNotification = nil
        bare.rmssdMs = nil
        var idle = full
        idle.effort?.kcal = nil
        idle.effort?.zoneSeconds = [:]
        idle.effort?.points = 0
        idle.rmssdMs = 100
        return [full, bare, idle]
    }

    @Test(arguments: views()) func theDeviceFrameIsTheEncodersJSON(_ view: DeviceView) throws {
        let message = LiveMessage.device(view)
        let frame = try #require(message.frame().getString(at: 0, length: message.frame().readableBytes))
        let written = try JSONSerialization.jsonObject(with: Data(frame.utf8)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: Data(message.json().utf8)) as? NSDictionary
        #expect(written != nil && written == encoded, "\(frame)\n\(message.json())")
    }
}
