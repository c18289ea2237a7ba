import Foundation
import Systemd
import Testing

/// systemd/heartd.catalog, the journal message catalog scripts/install.sh installs: one entry per `MessageID`, in
/// the format journald's `catalog_import_file` accepts, and — where journalctl exists — indexed by
/// `journalctl --update-catalog` into a database `journalctl --list-catalog` reads back.
@Suite("journal catalog")
struct JournalCatalogTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../systemd/heartd.catalog").standardized.path

    struct Entry {
        let id: String
        var headers: [String: String] = [:]
        var body: [String] = []
    }

    /// Parses the catalog with journald's rules: `#`/`;` comments, an entry starts with `-- <32 hex>` after an empty
    /// line, its first lines up to an empty line are `Key: value` headers, then the text. Throws on payload before the
    /// first id, an id line that is not 32 hex digits, a language suffix, or an entry without text.
    static func parse(_ text: String) throws -> [Entry] {
        var entries: [Entry] = []
        var emptyBefore = true, inHeaders = false
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let location = "heartd.catalog:\(number + 1)"
            if line.isEmpty { emptyBefore = true; inHeaders = false; continue }
            if line.first == "#" || line.first == ";" { continue }
            if line.hasPrefix("-- ") {
                let id = String(line.dropFirst(3))
                guard emptyBefore else { throw CatalogError("\(location): an entry must follow an empty line") }
                guard id.count == 32, id.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
                    throw CatalogError("\(location): '\(id)' is not 32 lower-case hex digits (no language suffix)")
                }
                if let last = entries.last, last.body.isEmpty { throw CatalogError("\(location): entry \(last.id) has no text") }
                entries.append(Entry(id: id))
                emptyBefore = false; inHeaders = true
                continue
            }
            guard !entries.isEmpty else { throw CatalogError("\(location): text before the first entry") }
            if inHeaders {
                guard let colon = line.firstIndex(of: ":") else { throw CatalogError("\(location): header without ':'") }
                entries[entries.count - 1].headers[String(line[..<colon])] = line[line.index(after: colon)...]
                    .trimmingCharacters(in: .whitespaces)
            } else {
                entries[entries.count - 1].body.append(String(line))
            }
            emptyBefore = false
        }
        if let last = entries.last, last.body.isEmpty { throw CatalogError("entry \(last.id) has no text") }
        return entries
    }

    struct CatalogError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("one entry per MessageID, each with a subject, heartd as its definer and text")
    func everyMessageIDHasOneEntry() throws {
        let entries = try Self.parse(try String(contentsOfFile: Self.path, encoding: .utf8))
        #expect(entries.map(\.id).sorted() == MessageID.allCases.map(\.hex).sorted())
        for entry in entries {
            #expect(!(entry.headers["Subject"] ?? "").isEmpty, "\(entry.id)")
            #expect(entry.headers["Defined-By"] == "heartd", "\(entry.id)")
            #expect(entry.body.joined().count > 80, "\(entry.id): say what happened and what to do")
        }
    }

    @Test("the parser refuses what journald refuses")
    func parserRefusesMalformedCatalogs() {
        #expect(throws: CatalogError.self) { try Self.parse("Subject: x\n") }
        #expect(throws: CatalogError.self) { try Self.parse("-- 5B0D6A1E3F8C4F52A8E1C2D4B6A79E01\nSubject: x\n\ntext\n") }
        #expect(throws: CatalogError.self) { try Self.parse("-- 5b0d6a1e3f8c4f52a8e1c2d4b6a79e01 de\nSubject: x\n\ntext\n") }
        #expect(throws: CatalogError.self) { try Self.parse("-- 5b0d6a1e3f8c4f52a8e1c2d4b6a79e01\nSubject: x\n") }
        #expect(throws: Never.self) { try Self.parse("# c\n-- 5b0d6a1e3f8c4f52a8e1c2d4b6a79e01\nSubject: x\n\ntext\n") }
    }

    @Test("journalctl --update-catalog indexes every entry",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/journalctl"), "needs journalctl"))
    func journalctlIndexesTheCatalog() throws {
        let root = try TestDirectory("catalog")
        defer { root.remove() }
        let dir = root.file("usr/lib/systemd/catalog")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.path, toPath: dir + "/heartd.catalog")
        let update = try runTool("/usr/bin/journalctl", ["--root=\(root.path)", "--update-catalog"])
        #expect(update.status == 0, "\(update.err)")
        let list = try runTool("/usr/bin/journalctl", ["--root=\(root.path)", "--list-catalog"])
        #expect(list.status == 0, "\(list.err)")
        for id in MessageID.allCases {
            #expect(list.out.contains("\(id.hex) heartd: "), "\(id) listed: \(list.out)")
        }
    }
}
