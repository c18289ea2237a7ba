import Foundation

/// Runtime changes to the device allow-list (`heartctl allow` / `forget`), kept in a small JSON file beside the
/// store so they survive restarts: `/etc` is read-only to the service. The effective list is
/// (configured ∪ allowed) − forgotten; `allow` undoes a `forget` and the other way round.
public struct AllowListFile: Sendable {
    public struct Contents: Codable, Sendable, Equatable {
        public var allowed: Set<String> = []
        public var forgotten: Set<String> = []
    }

    public let path: String

    public init(storePath: String) {
        path = (storePath as NSString).deletingLastPathComponent + "/devices.json"
    }

    public func load() -> Contents {
        guard let data = FileManager.default.contents(atPath: path),
              let contents = try? JSONDecoder().decode(Contents.self, from: data) else { return Contents() }
        return contents
    }

    /// Writes atomically (temporary file + rename), so a crash leaves the old or the new list, never half of one.
    public func save(_ contents: Contents) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(contents).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    public static func effective(configured: [String], _ contents: Contents) -> Set<String> {
        Set(configured.map { $0.uppercased() }).union(contents.allowed).subtracting(contents.forgotten)
    }
}
