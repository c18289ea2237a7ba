import Foundation
import HealthModel
@testable import HeartStore
import Testing

/// The store's hand-written JSON columns must read back exactly through `JSONDecoder`, for any text; metadata read by
/// `JSONText.flatStrings` (without `JSONDecoder`) is exactly what `JSONDecoder` reads, and text it does not take
/// (escapes, whitespace, other JSON) is left to `JSONDecoder`.
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

    @Test func flatObjectsReadAsJSONDecoderReadsThem() throws {
        let cases: [Metadata] = [
            [:], ["HeartdFinishReason": "max-beats"],
            ["HeartdDerivedFromSeries": "C441D5F7-B823-40C0-B74C-2FB5BBC17774", "HeartdFinishReason": "max-beats"],
            ["": "", "ünïcödé ❤️": "值", "a,b:c}{": "x,y"], ["quote\"": "back\\slash", "line": "a\nb\u{01}"],
        ]
        for metadata in cases {
            let text = JSONText.metadata(metadata)
            let decoded = try JSONDecoder().decode(Metadata.self, from: Data(text.utf8))
            #expect(decoded == metadata)
            #expect(try StoreCoding.metadata(text) == metadata, "\(text)")
            let escaped = text.contains("\\")
            #expect((JSONText.flatStrings(text) == nil) == escaped, "\(text)")
        }
    }

    @Test func otherTextIsLeftToJSONDecoder() throws {
        for text in ["{ \"a\": \"b\" }", "{\"a\":1}", "{\"a\":\"b\",}", "{\"a\":\"b\"", "[\"a\"]", "{\"a\":\"b\",\"a\":\"c\"}",
                     "{\"a\":\"b\"}x", "{\"a\"\"b\"}", "{}", "{\"a\":\"\\u0041\"}"] {
            let flat = JSONText.flatStrings(text)
            let full = try? JSONDecoder().decode(Metadata.self, from: Data(text.utf8))
            // Where the fast path answers, JSONDecoder answers the same; everything else it leaves alone.
            if let flat { #expect(flat == full, "\(text)") }
        }
        #expect(JSONText.flatStrings("{}") == [:])
        #expect(JSONText.flatStrings("{ \"a\": \"b\" }") == nil)
        #expect(throws: StoreError.self) { try StoreCoding.metadata("{\"a\":\"b\"") }
        #expect(try StoreCoding.metadata("{ \"a\": \"\\u0041\" }") == ["a": "A"])
    }
}
