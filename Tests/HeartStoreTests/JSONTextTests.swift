import Foundation
import HealthModel
@testable import HeartStore
import Testing

/// The store's hand-written JSON columns must read back exactly through `JSONDecoder`, for any text.
@Suite struct JSONTextTests {
    static let awkward = ["", "plain", "quote \" and backslash \\", "slash / and tab\t", "newline\nreturn\r",
                          "control \u{01}\u{1F}\u{7F}", "ünïcødé ♥ 😀", "{\"json\": [1, 2]}", "\u{2028}\u{2029}"]

    @Test func metadataRoundTripsThroughJSONDecoder() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            var m: Metadata = [:]
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let key = Self.awkward.randomElement(using: &rng)! + String(Int.random(in: 0...99, using: &rng))
                m[key] = Self.awkward.randomElement(using: &rng)! + String(UnicodeScalar(UInt8.random(in: 0...127, using: &rng)))
            }
            let text = try #require(StoreCoding.json(m))
            #expect(try JSONDecoder().decode(Metadata.self, from: Data(text.utf8)) == m, "\(text)")
            #expect(try StoreCoding.metadata(text) == m)
        }
        #expect(StoreCoding.json([:]) == nil)
    }

    @Test func deviceRoundTripsAndCoversEveryField() throws {
        let full = DeviceInfo(name: "Polar H10 \"A\"", manufacturer: "Polar Electro Oy", model: "H10",
                              hardwareVersion: "39044024.10", firmwareVersion: "5.0.0", softwareVersion: "1.1\n",
                              localIdentifier: "A0:9E:1A:7C:00:01", udiDeviceIdentifier: "(01)123/x",
                              metadata: ["HKMetadataKeyHeartRateSensorLocation": "1", "serial": "C7\\2"])
        for device in [full, DeviceInfo(), DeviceInfo(localIdentifier: "AA:BB:CC:DD:EE:FF")] {
            let text = StoreCoding.json(device)
            #expect(try StoreCoding.device(text) == device, "\(text)")
            // The same members as Foundation's encoding of the Codable struct (a new field must be added here too).
            let ours = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let theirs = try #require(try JSONSerialization.jsonObject(with: encoder.encode(device)) as? [String: Any])
            #expect(Set(ours.keys) == Set(theirs.keys))
        }
        let fields = Set(Mirror(reflecting: full).children.compactMap(\.label))
        let written = try #require(try JSONSerialization.jsonObject(with: Data(StoreCoding.json(full).utf8)) as? [String: Any])
        #expect(Set(written.keys) == fields)
    }
}
