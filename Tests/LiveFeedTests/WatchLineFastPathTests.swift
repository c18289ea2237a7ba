import Control
import Foundation
import HealthModel
import HeartQueries
import Testing

/// `WatchMessage(line:)` reads heartd's plain heart-rate and beats lines straight from their text (`JSONPlainValue`):
/// for every kind of event, and for lines of other forms and malformed ones, it gives exactly what the tree path
/// (`JSONValue(parsing:)`, `ControlEvent(json:)`, `init(knownEvent:)`) gives — the same message, nil, or the same
/// error.
@Suite struct WatchLineFastPathTests {
    static let at = Date(timeIntervalSince1970: 1_780_000_000.125)
    static let device = "A0:9E:1A:00:00:02"
    static let session = Session(uuid: UUID(), label: "round 7", start: at, end: at.addingTimeInterval(60), devices: [device],
                                 metadata: ["game": "round-7", "coach": "Ann"])

    /// One message of every kind, plain, and some whose text is not plain (escapes, non-ASCII): those take the tree.
    static let messages: [WatchMessage] = [
        .connected(.init(device: device, at: at, info: DeviceInfo(name: "Polar H10", manufacturer: "Polar"))),
        .connected(.init(device: device, at: at, info: DeviceInfo(name: "<b>Pölar</b> \"H10\"\n"))),
        .connected(.init(device: device, at: at, info: nil)),
        .disconnected(.init(device: device, at: at, reason: "link-lost")),
        .heartRate(.init(device: device, at: at, bpm: 71)),
        .beats(.init(device: device, beats: [.init(time: at, gap: true), .init(time: at.addingTimeInterval(0.875), gap: false)])),
        .beats(.init(device: device, beats: [])),
        .battery(.init(device: device, at: at, percent: 80)),
        .contact(.init(device: device, at: at, detected: false)),
        .seriesFinished(.init(device: device, uuid: UUID(), type: "HKQuantityTypeIdentifierHeartRate", reason: .maxValues)),
        .sessionStarted(.init(session: Session(start: at, devices: [device]))),
        .sessionStopped(.init(session: session)),
        .sessionEnded(.init(session: UUID(), end: at)),
        .sessionEnded(.init(session: UUID(), end: nil)),
        .dfaAlpha1(.init(device: device, at: at, alpha1: 0.75, state: .measured, intervals: 120, artifactPercent: 1.5, windowFull: true)),
        .dfaAlpha1(.init(device: device, at: at, alpha1: nil, state: .tooFewIntervals, intervals: 12, artifactPercent: 0, windowFull: false)),
        .peopleChanged(.init(at: at)),
    ]

    /// What the tree path makes of a line.
    static func treePath(_ line: [UInt8]) -> Result<WatchMessage?, WatchMessageError> {
        let event: ControlEvent?
        do {
            event = ControlEvent(json: try JSONValue(parsing: line))
        } catch {
            return .failure(WatchMessageError(.malformed, "watch line: \(error)"))
        }
        guard let event else { return .failure(WatchMessageError(.malformed, "a watch line without an \"event\" name")) }
        do {
            return .success(try WatchMessage(knownEvent: event))
        } catch {
            return .failure(error)
        }
    }

    static func textPath(_ line: [UInt8]) -> Result<WatchMessage?, WatchMessageError> {
        do {
            return .success(try WatchMessage(line: line))
        } catch {
            return .failure(error)
        }
    }

    @Test func everyKindCoversEveryEvent() {
        #expect(Set(Self.messages.map(\.name)) == Set(WatchEvent.allCases))
    }

    @Test(arguments: messages) func aLineReadsAsTheTreeReadsIt(_ message: WatchMessage) throws {
        let line = message.controlEvent.encodedLine()
        #expect(Self.textPath(line) == .success(message))
        #expect(Self.textPath(line) == Self.treePath(line))
    }

    /// Lines of other forms, and malformed ones: the same value, or the same error, on both paths.
    static let oddLines: [String] = [
        #" { "bpm" : 71 , "extra": [1, 2.5e3, null, true, {}, [], {"a": "b"}], "at": "2026-05-28T20:26:40.125Z", "device": "A", "event": "heart-rate" } "#,
        #"{"event":"heart-rate","bpm":71,"bpm":72,"at":"2026-05-28T20:26:40.125Z","device":"A"}"#,
        #"{"event":"heart-rate","bpm":7.1e1,"at":"2026-05-28T20:26:40.125Z","device":"A"}"#,
        #"{"event":"heart-rate","bpm":-0,"at":"2026-05-28T20:26:40.125Z","device":"A"}"#,
        #"{"event":"heart-rate","bpm":71.5,"at":"2026-05-28T20:26:40.125Z","device":"A"}"#,
        #"{"event":"heart-rate","bpm":99999999999999999999,"at":"2026-05-28T20:26:40.125Z","device":"A"}"#,
        #"{"event":"heart-rate","bpm":71,"at":"2026-05-28T20:26:40Z","device":"A"}"#,
        #"{"event":"heart-rate","bpm":71,"at":1780000000,"device":"A"}"#,
        #"{"event":"heart-rate","bpm":"fast","at":"2026-05-28T20:26:40.125Z","device":"A"}"#,
        #"{"event":"heart-rate","at":"2026-05-28T20:26:40.125Z","device":"A"}"#,
        #"{"event":"heart-rate","bpm":null,"at":"2026-05-28T20:26:40.125Z","device":"A"}"#,
        #"{"event":"heart-rate","bpm":71,"at":"2026-05-28T20:26:40.125Z","device":"A","junk":1e999}"#,
        #"{"event":"heart-rate","bpm":71,"at":"2026-05-28T20:26:40.125Z","device":"A","junk":01}"#,
        #"{"event":"heart-rate","bpm":71,"at":"2026-05-28T20:26:40.125Z","device":"A\u0042"}"#,
        #"{"event":"heart-rate","bpm":71,"at":"2026-05-28T20:26:40.125Z","device":"A",}"#,
        #"{"event":"beats","device":"A","beats":{"time":"2026-05-28T20:26:40.125Z","gap":false}}"#,
        #"{"event":"beats","device":"A","beats":[{"time":"2026-05-28T20:26:40.125Z","gap":0}]}"#,
        #"{"event":"beats","device":"A","beats":[{"time":"2026-05-28T20:26:40.125Z","gap":false},]}"#,
        #"{"event":"beats","device":"A","beats":[null]}"#,
        #"{"event":"series-finished","device":"A","uuid":"not-a-uuid","type":"t","reason":"idle"}"#,
        #"{"event":"series-finished","device":"A","uuid":"8C1D3A52-5A39-4F4B-9B8E-0D9E6B7F0A11","type":"t","reason":"tired"}"#,
        #"{"event":"session-stopped","session":{"uuid":"8C1D3A52-5A39-4F4B-9B8E-0D9E6B7F0A11","start":"2026-05-28T20:26:40.125Z","devices":["A"],"metadata":{"a":"1","a":"2"}}}"#,
        #"{"event":"session-stopped","session":[]}"#,
        #"{"event":"tide-turned","at":"2026-01-01T00:00:00.000Z"}"#,
        #"{"event":7,"bpm":70}"#,
        #"{"bpm":70}"#,
        #"[{"event":"heart-rate"}]"#,
        #""heart-rate""#,
        #"{"event":"heart-rate","bpm":71} x"#,
        #"{"event":"heart-rate","bpm":71"#,
        "not json",
        "",
        "{\"event\":\"heart-rate\",\"device\":\"A\u{1}\",\"bpm\":71,\"at\":\"2026-05-28T20:26:40.125Z\"}",
        String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
    ]

    @Test(arguments: oddLines) func anOddOrMalformedLineReadsAsTheTreeReadsIt(_ text: String) {
        let line = Array(text.utf8)
        #expect(Self.textPath(line) == Self.treePath(line), "\(text)")
    }

    @Test func malformedLinesAreClearErrors() {
        guard case .failure(let error) = Self.textPath(Array(Self.oddLines[8].utf8)) else {
            Issue.record("a heart rate that is a word was read")
            return
        }
        #expect(error.code == .malformed && error.detail.contains("watch event 'heart-rate'") && error.detail.contains("bpm"))
        guard case .failure(let notJSON) = Self.textPath(Array("not json".utf8)) else {
            Issue.record("not json was read")
            return
        }
        #expect(notJSON.code == .malformed && notJSON.detail.hasPrefix("watch line: not JSON at byte"))
    }
}

