import Control
import Foundation
import HeartQueries
@testable import HeartdKit
import Testing

/// docs/CONTROL.md documents every `ControlMethod` and every `watch` event — and nothing that is not — with the
/// access class, streaming and parameters the enum and its call types give.
@Suite struct ControlDocumentationTests {
    static let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/CONTROL.md")

    /// Each `### \`method\`` section's text, by method name.
    static func sections() throws -> [String: String] {
        let text = try String(contentsOf: doc, encoding: .utf8)
        var sections: [String: String] = [:]
        var current: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("### `"), line.hasSuffix("`") {
                current = String(line.dropFirst(5).dropLast())
                sections[current ?? ""] = ""
            } else if line.hasPrefix("#") {
                current = nil
            } else if let current {
                sections[current, default: ""] += line + "\n"
            }
        }
        return sections
    }

    @Test func everyMethodHasASection() throws {
        let documented = Set(try Self.sections().keys)
        let served = Set(ControlMethod.allCases.map(\.rawValue)).union([ControlProtocol.helloMethod])
        #expect(documented == served, "undocumented: \(served.subtracting(documented)); documented but not served: \(documented.subtracting(served))")
    }

    /// A section starts with `*read.*`, `*read, streaming.*`, `*session.*` or `*admin.*`.
    @Test func accessAndStreamingMatchTheEnum() throws {
        let sections = try Self.sections()
        for method in ControlMethod.allCases {
            let text = sections[method.rawValue] ?? ""
            let expected = "*\(method.access.rawValue)\(method.isStreaming ? ", streaming" : "").*"
            #expect(text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix(expected),
                    "\(method.rawValue): the section should start with \(expected)")
        }
    }

    /// The table of methods names each one's call type, access class and streaming as the enum does.
    @Test func theMethodTableMatchesTheEnum() throws {
        let text = try String(contentsOf: Self.doc, encoding: .utf8)
        for method in ControlMethod.allCases {
            let row = "| `\(method.rawValue)` | `\(method.call)` | \(method.access.rawValue) | \(method.isStreaming ? "yes " : "")|"
            #expect(text.contains(row), "the table of methods lacks \(row)")
        }
    }

    /// Every parameter a call type sends is named (in backticks) in its method's section.
    @Test func everyParameterIsDocumented() throws {
        let sections = try Self.sections()
        for method in ControlMethod.allCases {
            let text = sections[method.rawValue] ?? ""
            for key in ControlCallExample.of(method).params.keys {
                #expect(text.contains("`\(key)`"), "\(method.rawValue): parameter \(key) is not documented")
            }
        }
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
