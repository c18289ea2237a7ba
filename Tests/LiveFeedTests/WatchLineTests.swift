import Control
import Foundation
import HealthModel
@testable import HeartQueries
import Testing

/// `WatchMessage(line:)`, which LiveFeed decodes every `watch` line with: the same message as the `ControlEvent`
/// path (`init(knownEvent:)`) for every event heartd sends, nil for an unknown one, and a clear error for a line of
/// the wrong shape.
@Suite struct WatchLineTests {
    static let at = Date(timeIntervalSince1970: 1_780_000_000.125)
    static let messages: [WatchMessage] = [
        .connected(.init(device: "A0:9E:1A:00:00:02", at: at, info: DeviceInfo(name: "<b>Polar</b> \"H10\""))),
        .disconnected(.init(device: "A0:9E:1A:00:00:02", at: at, reason: "link-lost")),
        .heartRate(.init(device: "A0:9E:1A:00:00:02", at: at, bpm: 71)),
        .beats(.init(device: "A0:9E:1A:00:00:02", beats: [.init(time: at, gap: true), .init(time: at.addingTimeInterval(0.875), gap: false)])),
        .battery(.init(device: "A0:9E:1A:00:00:02", at: at, percent: 80)),
        .contact(.init(device: "A0:9E:1A:00:00:02", at: at, detected: false)),
        .dfaAlpha1(.init(device: "A0:9E:1A:00:00:02", at: at, alpha1: 0.75, state: .measured, intervals: 120, artifactPercent: 1.5, windowFull: true)),
        .dfaAlpha1(.init(device: "A0:9E:1A:00:00:02", at: at, alpha1: nil, state: .tooFewIntervals, intervals: 12, artifactPercent: 0, windowFull: false)),
        .sessionEnded(.init(session: UUID(), end: at)),
        .peopleChanged(.init(at: at)),
    ]

    @Test(arguments: messages) func aLineDecodesToTheSameMessageAsItsEvent(_ message: WatchMessage) throws {
        let line = message.controlEvent.encodedLine()
        let event = try #require(ControlEvent(json: try JSONDecoder().decode(JSONValue.self, from: Data(line))))
        #expect(try WatchMessage(line: line) == message)
        #expect(try WatchMessage(line: line) == WatchMessage(knownEvent: event))
    }

    @Test func aNewerDaemonsEventIsSkippedAndAMalformedLineIsAnError() throws {
        #expect(try WatchMessage(line: Array(#"{"event":"tide-turned","at":"2026-01-01T00:00:00.000Z"}"#.utf8)) == nil)
        for bad in [#"{"event":"heart-rate","device":"A0:9E:1A:00:00:02","bpm":"fast"}"#, #"{"bpm":70}"#, "not json"] {
            #expect {
                _ = try WatchMessage(line: Array(bad.utf8))
            } throws: { error in
                (error as? WatchMessageError)?.code == .malformed
            }
        }
    }
}

extension WatchLineTests {
    /// Lines as another writer might send them (spaces, escapes, members in another order, extra members): the hand
    /// line reads as the message it holds, and a heart rate of another type is refused.
    @Test func oddLinesReadAsTheirMessage() throws {
        let heartRate = WatchMessage.heartRate(.init(device: "A0:9E:1A:00:00:02", at: Self.at, bpm: 71))
        let odd = #" { "bpm" : 71 , "extra": [1, 2.5e3, null, {"a": "\u00e9\n"}], "at": "2026-05-28T20:26:40.125Z", "device": "A0:9E:1A:00:00:02", "event": "heart-rate" } "#
        #expect(try WatchMessage(line: Array(odd.utf8)) == heartRate)
        let escaped = #"{"event":"beats","device":"A0:9E:1A:00:00:\u0030\"2","beats":[{"time":"2026-05-28T20:26:40.125Z","gap":false}]}"#
        #expect(try WatchMessage(line: Array(escaped.utf8)) == .beats(.init(device: "A0:9E:1A:00:00:0\"2", beats: [.init(time: Self.at, gap: false)])))
        #expect(throws: WatchMessageError.self) {
            try WatchMessage(line: Array(#"{"event":"heart-rate","device":"A","at":"2026-05-28T20:26:40.125Z","bpm":71.5}"#.utf8))
        }
    }
}

extension WatchLineTests {
    /// heartd's date form written and read by arithmetic is Foundation's ISO 8601 style's, to the millisecond, across
    /// years, leap days and month ends; other forms still read.
    @Test func datesByArithmeticAreFoundationsOwn() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &generator)) / 1000
                            + Double.random(in: 0..<0.001, using: &generator))
            let text = ExportDates.iso(date)
            #expect(text == date.formatted(ExportDates.style), "\(date.timeIntervalSince1970)")
            let read = try #require(ExportDates.utcMilliseconds(text), "\(text)")
            let expected = try #require(try? ExportDates.style.parse(text))
            #expect(abs(read.timeIntervalSince(expected)) < 0.000_5, "\(text)")
        }
        #expect(ExportDates.utcMilliseconds("2026-02-29T00:00:00.000Z") == nil)
        #expect(ExportDates.utcMilliseconds("2026-02-28T00:00:00.000+01") == nil)
        #expect(ExportDates.parse("2026-02-28T01:00:00+01:00") == ExportDates.parse("2026-02-28T00:00:00.000Z"))
    }
}
