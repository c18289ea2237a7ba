import Foundation
import HealthModel
@testable import HeartdKit
import Ingest
import Synchronization
import Testing

/// `STATUS=` follows the sensors' states as they change (it lagged by up to 10 s when it was refreshed from the
/// watchdog timer), and is sent only when its text changes.
@Suite struct SystemdStatusLineTests {
    final class Sent: Sendable {
        let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
    }

    @Test func followsConnectStreamAndLossAtOnce() {
        let sent = Sent()
        let line = SystemdStatusLine { text in sent.lines.withLock { $0.append(text) } }
        let a = "A0:9E:1A:00:00:01", b = "A0:9E:1A:00:00:02"
        var device = DeviceInfo(localIdentifier: a)
        device.name = "Polar H10"
        line.observe(.connected(address: a, device: device, at: Date()))
        #expect(sent.all.last == "capturing 1 sensor: Polar H10 \(a) connected")
        line.observe(.heartRate(address: a, bpm: 61, at: Date()))
        #expect(sent.all.last == "capturing 1 sensor: Polar H10 \(a) streaming")
        line.observe(.heartRate(address: a, bpm: 62, at: Date()))
        line.observe(.beats(address: a, beats: []))
        line.observe(.battery(address: a, percent: 80, at: Date()))
        #expect(sent.all.count == 2, "values that change no state send nothing: \(sent.all)")
        line.observe(.connected(address: b, device: nil, at: Date()))
        #expect(sent.all.last == "capturing 2 sensors: Polar H10 \(a) streaming, \(b) connected")
        line.observe(.disconnected(address: a, reason: .linkLost, at: Date()))
        #expect(sent.all.last == "capturing 1 sensor: \(b) connected; lost: \(a) (link-lost)")
        line.observe(.disconnected(address: b, reason: .silentStop, at: Date()))
        #expect(sent.all.last == "waiting for sensors; lost: \(a) (link-lost), \(b) (silent-stop)")
        line.observe(.connected(address: a, device: device, at: Date()))
        #expect(sent.all.last == "capturing 1 sensor: Polar H10 \(a) connected; lost: \(b) (silent-stop)")
        line.observe(.disconnected(address: "00:00:00:00:00:09", reason: .linkLost, at: Date()))
        #expect(sent.all.count == 6, "a sensor never connected is not news")
    }

    /// Values of a streaming sensor skip the lookup; a state change in between must still be seen.
    @Test func aSensorStreamingAgainAfterAReconnectIsShownStreaming() {
        let sent = Sent()
        let line = SystemdStatusLine { text in sent.lines.withLock { $0.append(text) } }
        let a = "A0:9E:1A:00:00:01", b = "A0:9E:1A:00:00:02"
        line.observe(.connected(address: a, device: nil, at: Date()))
        line.observe(.heartRate(address: a, bpm: 61, at: Date()))
        line.observe(.heartRate(address: a, bpm: 62, at: Date()))
        #expect(sent.all.last == "capturing 1 sensor: \(a) streaming")
        line.observe(.connected(address: a, device: nil, at: Date()))  // connected again, no value yet
        #expect(sent.all.last == "capturing 1 sensor: \(a) connected")
        line.observe(.heartRate(address: a, bpm: 63, at: Date()))
        #expect(sent.all.last == "capturing 1 sensor: \(a) streaming")
        line.observe(.disconnected(address: a, reason: .linkLost, at: Date()))
        line.observe(.heartRate(address: a, bpm: 64, at: Date()))  // a late value of a sensor gone
        #expect(sent.all.last == "waiting for sensors; lost: \(a) (link-lost)")
        line.observe(.connected(address: b, device: nil, at: Date()))
        line.observe(.beats(address: b, beats: []))
        line.observe(.connected(address: a, device: nil, at: Date()))
        line.observe(.heartRate(address: a, bpm: 65, at: Date()))
        #expect(sent.all.last == "capturing 2 sensors: \(a) streaming, \(b) streaming")
    }
}
