import Foundation
import HealthModel
@testable import HeartStore
import Testing

/// Metadata read back by `JSONText.flatStrings` (without `JSONDecoder`) is exactly what `JSONDecoder` reads from the
/// text `JSONText.metadata` wrote; text it does not take (escapes, whitespace, other JSON) is left to `JSONDecoder`.
@Suite("JSONText: flat metadata read back")
struct JSONTextTests {
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
