import Foundation
import Testing
@testable import Control

/// `JSONValueEncoder` and `JSONValueWriter` must give what the `JSONEncoder` round trip they replace gave: the same
/// tree and the same bytes on the wire.
@Suite struct JSONValueEncoderTests {
    struct Inner: Codable, Equatable { var n: Int8; var f: Float; var u: UInt64 }
    enum Kind: String, Codable { case one, two }
    struct Sample: Codable, Equatable {
        var text: String
        var absent: String?
        var present: Int?
        var whole: Double
        var fraction: Double
        var tiny: Double
        var huge: Double
        var kind: Kind
        var list: [Inner]
        var map: [String: [Bool]]
        var date: Date
        var url: URL
        var data: Data
        var id: UUID
    }

    static let sample = Sample(
        text: "a \"quote\", a \\ backslash, a / slash, \n\t\r\u{08}\u{0C}\u{01}\u{1F} é ✓ 🫀 \u{2028}",
        absent: nil, present: 4, whole: 3, fraction: 0.1, tiny: 1e-7, huge: 1.5e300, kind: .two,
        list: [Inner(n: -3, f: 0.1, u: UInt64(Int.max)), Inner(n: 7, f: 2, u: 5)],
        map: ["b": [true], "a": [], "B": [false, true], "é": [], "a10": [], "a2": [], "_": []],
        date: Date(timeIntervalSince1970: 1_700_000_000.125), url: URL(string: "https://example.org/a?b=c")!,
        data: Data([0, 1, 2, 250]), id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!)

    static func viaText(_ value: some Encodable, dates: Bool) throws -> JSONValue {
        let encoder = JSONEncoder()
        if dates {
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var c = encoder.singleValueContainer()
                try c.encode("at \(date.timeIntervalSince1970)")
            }
        }
        return try JSONDecoder().decode(JSONValue.self, from: encoder.encode(value))
    }

    @Test func givesTheTreeTheTextRoundTripGave() throws {
        let direct = JSONValueEncoder(date: { .string("at \($0.timeIntervalSince1970)") })
        #expect(try direct.encode(Self.sample) == Self.viaText(Self.sample, dates: true))
        #expect(try JSONValueEncoder().encode(Self.sample) == Self.viaText(Self.sample, dates: false))
        #expect(try JSONValueEncoder().encode([1.0, 2.5]) == Self.viaText([1.0, 2.5], dates: false))
        #expect(try JSONValueEncoder().encode("plain") == .string("plain"))
        #expect(try JSONValueEncoder().encode(UInt64.max) == Self.viaText(UInt64.max, dates: false))
        #expect(try JSONValueEncoder().encode(["k": Optional<Int>.none]) == Self.viaText(["k": Optional<Int>.none], dates: false))
    }

    @Test func refusesWhatJSONCannotHold() {
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["x": Double.infinity]) }
    }

    @Test func writesTheBytesJSONEncoderWrites() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let tree = try JSONValueEncoder().encode(Self.sample)
        let values: [JSONValue] = [
            tree, .null, .bool(false), .int(-12), .double(-0.0), .double(0.1), .double(1e-7), .double(123456789.125),
            .double(1e21), .double(-2.5e-300), .double(Double(Int.max)), .string(""), .array([]), .object([:]),
        ]
        for value in values {
            #expect(JSONValueWriter.bytes(value) == Array(try encoder.encode(value)), "\(value)")
        }
    }

    @Test func anEventLineReadsBackAsTheEvent() throws {
        let event = ControlEvent("beats", fields: ["device": "A0:9E:1A:7C:02:01", "beats": [["time": "t", "gap": true]]])
        let line = event.encodedOnce().encodedLine()
        let back = ControlEvent(json: try JSONLine.decode(JSONValue.self, from: line))
        #expect(back == event)
    }
}

/// `JSONValueParser` reads what `JSONDecoder` read into `JSONValue`, and refuses what it refused.
@Suite struct JSONValueParserTests {
    static func viaDecoder(_ text: String) -> JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }

    @Test func readsWhatJSONDecoderRead() throws {
        let texts = [
            #"{"a":1,"b":[true,null,2.5,"x"],"c":{"nested":"y"}}"#, " [ 1 , -0 , 3.0 , 1e2 , -1.5E-3 , 12345678901234567890 ] ",
            #""esc \" \\ \/ \n \r \t \b \f \u00e9 \u2028 \ud83e\udec0 é""#, "0", "-7", "true", "false", "null", "{}", "[]",
            #"{"dup":1,"dup":2}"#, "\t{\"k\" :\r\n\"v\"}\n", "9223372036854775807", "-9223372036854775808", "0.1",
        ]
        for text in texts {
            let parsed = try JSONValueParser.parse(Array(text.utf8))
            #expect(parsed == Self.viaDecoder(text), "\(text)")
        }
    }

    @Test func refusesWhatIsNotJSON() {
        let bad: [[UInt8]] = [
            Array("".utf8), Array("{".utf8), Array("[1,]".utf8), Array("{\"a\" 1}".utf8), Array("01".utf8), Array("1.".utf8),
            Array(".5".utf8), Array("1e".utf8), Array("tru".utf8), Array("nul".utf8), Array("\"open".utf8),
            Array("\"\\x\"".utf8), Array("\"\\u12\"".utf8), Array("\"\\ud83e\"".utf8), Array("\"a\u{01}b\"".utf8),
            Array("1 2".utf8), Array("1e400".utf8), [0x22, 0xFF, 0x22], Array("{\"a\":1,}".utf8), Array("+1".utf8),
            Array(String(repeating: "[", count: 600).utf8),
        ]
        for bytes in bad {
            #expect(throws: JSONParseError.self, "\(String(decoding: bytes, as: UTF8.self))") { try JSONValueParser.parse(bytes) }
            // JSONDecoder also refused them, except invalid UTF-8 (it reads U+FFFD) and a trailing comma, which it
            // tolerates and RFC 8259 does not.
            let tolerated: Set<[UInt8]> = [[0x22, 0xFF, 0x22], Array("[1,]".utf8), Array("{\"a\":1,}".utf8)]
            #expect(Self.viaDecoder(String(decoding: bytes, as: UTF8.self)) == nil || tolerated.contains(bytes))
        }
    }

    @Test func aRandomTreeSurvivesWritingAndReading() throws {
        var generator = SystemRandomNumberGenerator()
        func tree(_ depth: Int) -> JSONValue {
            switch depth > 3 ? Int.random(in: 0..<5, using: &generator) : Int.random(in: 0..<7, using: &generator) {
            case 0: return .null
            case 1: return .bool(Bool.random(using: &generator))
            case 2: return .int(Int.random(in: -1_000_000...1_000_000, using: &generator))
            case 3: return .double(Double.random(in: -1e6...1e6, using: &generator))
            case 4: return .string(String((0..<8).map { _ in Character(Unicode.Scalar(UInt8.random(in: 1...126, using: &generator))) }))
            case 5: return .array((0..<3).map { _ in tree(depth + 1) })
            default: return .object(Dictionary(uniqueKeysWithValues: (0..<3).map { ("k\($0)", tree(depth + 1)) }))
            }
        }
        for _ in 0..<200 {
            let value = tree(0)
            #expect(try JSONValueParser.parse(JSONValueWriter.bytes(value)) == Self.viaDecoder(String(decoding: JSONValueWriter.bytes(value), as: UTF8.self)))
        }
    }
}

/// `JSONValueDecoder` decodes what `JSONDecoder` decoded from the same value's text, and refuses what it refused.
@Suite struct JSONValueDecoderTests {
    typealias Sample = JSONValueEncoderTests.Sample

    static let dates = JSONValueDecoder(date: { value, path in
        guard case .string(let text) = value, text.hasPrefix("at "), let seconds = Double(text.dropFirst(3)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "not a date"))
        }
        return Date(timeIntervalSince1970: seconds)
    })

    static func tree(_ text: String) throws -> JSONValue { try JSONValueParser.parse(Array(text.utf8)) }

    @Test func decodesWhatItsEncoderWrote() throws {
        let encoder = JSONValueEncoder(date: { .string("at \($0.timeIntervalSince1970)") })
        let tree = try encoder.encode(JSONValueEncoderTests.sample)
        #expect(try Self.dates.decode(Sample.self, from: tree) == JSONValueEncoderTests.sample)
        #expect(try JSONValueDecoder().decode(Sample.self, from: JSONValueEncoder().encode(JSONValueEncoderTests.sample))
            == JSONValueEncoderTests.sample)
        #expect(try JSONValueDecoder().decode(JSONValue.self, from: tree) == tree)
        #expect(try JSONValueDecoder().decode([String: Int?].self, from: Self.tree(#"{"a":null,"b":2}"#)) == ["a": nil, "b": 2])
        #expect(try JSONValueDecoder().decode([Double].self, from: Self.tree("[1, 2.5, 1e2]")) == [1, 2.5, 100])
        #expect(try JSONValueDecoder().decode(UInt8.self, from: .double(7)) == 7)
    }

    struct Needs: Decodable { var n: Int; var s: String? }

    @Test func refusesWhatJSONDecoderRefused() throws {
        let cases = [#"{"s":"x"}"#, #"{"n":"1"}"#, #"{"n":1.5}"#, #"{"n":1e30}"#, "[1]", #"{"n":1,"s":2}"#]
        for text in cases {
            #expect(throws: DecodingError.self, "\(text)") { try JSONValueDecoder().decode(Needs.self, from: Self.tree(text)) }
            #expect(throws: DecodingError.self, "\(text)") { try JSONDecoder().decode(Needs.self, from: Data(text.utf8)) }
        }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode(UInt8.self, from: .int(300)) }
        #expect(throws: DecodingError.self) { try JSONValueDecoder().decode([Int].self, from: .object([:])) }
        #expect(throws: DecodingError.self) { try Self.dates.decode(Date.self, from: .string("yesterday")) }
        let partial = try JSONValueDecoder().decode(Needs.self, from: Self.tree(#"{"n":3,"s":null,"extra":[]}"#))
        #expect(partial.n == 3 && partial.s == nil)
    }
}
