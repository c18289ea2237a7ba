import Control
import Foundation
import HeartQueries
@testable import HeartdKit
import Testing

/// docs/CONTROL.md documents every method the daemon serves and every `watch` event — and nothing that is not.
@Suite struct ControlDocumentationTests {
    static let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/CONTROL.md")

    @Test func everyMethodHasASection() throws {
        let text = try String(contentsOf: Self.doc, encoding: .utf8)
        let documented = Set(text.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("### `"), line.hasSuffix("`") else { return nil }
            return String(line.dropFirst(5).dropLast())
        })
        let served = Set(ControlMethod.allCases.map(\.rawValue)).union([ControlProtocol.helloMethod])
        #expect(documented == served, "undocumented: \(served.subtracting(documented)); documented but not served: \(documented.subtracting(served))")
    }

    @Test func everyWatchEventIsInTheTable() throws {
        let text = try String(contentsOf: Self.doc, encoding: .utf8)
        for event in WatchEvent.allCases {
            #expect(text.contains("| `\(event.rawValue)` |"), "watch event \(event.rawValue) is not documented")
        }
        for event in ChangeEvent.allCases {
            #expect(text.contains("| `\(event.rawValue)` |"), "subscribe event \(event.rawValue) is not documented")
        }
        let configuration = try String(contentsOf: Self.doc.deletingLastPathComponent().appendingPathComponent("CONFIGURATION.md"),
                                       encoding: .utf8)
        #expect(!configuration.contains("\"event\": \"beat\""), "CONFIGURATION.md names an event that does not exist")
    }
}
