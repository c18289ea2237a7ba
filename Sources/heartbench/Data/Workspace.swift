import Foundation

/// A private temporary directory for one run's SQLite files, removed at the end unless kept.
struct Workspace {
    let directory: String

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("heartbench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { directory + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}
