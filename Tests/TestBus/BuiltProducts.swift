import Foundation

/// Shared by HeartdKitTests and SyncTests.
/// Finds the executables SwiftPM built next to the test bundle (`.build/<triple>/<config>/heartd`).
///
/// `swift test` builds every product before running the tests, so `heartd` and `heartctl` sit in the same
/// directory as the `*.xctest` bundle. `HEARTD_BIN_DIR` overrides the search.
public enum BuiltProducts {
    public struct NotFound: Error, CustomStringConvertible {
        let name: String
        let searched: [String]
        public var description: String {
            "cannot find the built executable '\(name)' (searched: \(searched.joined(separator: ", "))); " +
                "run `swift build` first or set HEARTD_BIN_DIR to the directory holding it"
        }
    }

    /// The absolute path of the executable `name`, or a `NotFound` error naming the directories searched.
    public static func path(_ name: String) throws -> String {
        var searched: [String] = []
        for dir in candidateDirectories() {
            let candidate = dir.appendingPathComponent(name).path
            searched.append(dir.path)
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw NotFound(name: name, searched: searched)
    }

    /// The directory chain above the running test binary, nearest first, plus the override.
    public static func candidateDirectories() -> [URL] {
        var dirs: [URL] = []
        if let override = ProcessInfo.processInfo.environment["HEARTD_BIN_DIR"] {
            dirs.append(URL(fileURLWithPath: override))
        }
        let starts = [
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "",
            ProcessInfo.processInfo.arguments.first ?? "",
            Bundle.main.bundlePath,
        ]
        for start in starts where !start.isEmpty {
            var url = URL(fileURLWithPath: start).standardizedFileURL.deletingLastPathComponent()
            // The bundle may be nested (macOS: X.xctest/Contents/MacOS/X); walk up to the build directory.
            for _ in 0..<5 {
                if !dirs.contains(url) { dirs.append(url) }
                if url.path == "/" { break }
                url = url.deletingLastPathComponent()
            }
        }
        return dirs
    }
}
