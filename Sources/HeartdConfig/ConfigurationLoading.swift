import Foundation

extension HeartdConfiguration {
    /// Reads and parses the file at `path`, then applies `overrides`.
    /// - Parameter missingIsDefault: when true, a missing file yields the defaults (plus overrides)
    ///   instead of an `unreadable` error.
    public static func load(path: String, overrides: [String: String] = [:], missingIsDefault: Bool = false) throws(ConfigurationError) -> HeartdConfiguration {
        guard FileManager.default.fileExists(atPath: path) else {
            if missingIsDefault { return try parse("", source: path, overrides: overrides) }
            throw ConfigurationError(.unreadable, source: path, "configuration file does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(.unreadable, source: path, "configuration file cannot be read")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(.unreadable, source: path, "configuration file is not UTF-8")
        }
        return try parse(text, source: path, overrides: overrides)
    }
}
