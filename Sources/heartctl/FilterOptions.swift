import ArgumentParser
import Control
import Foundation
import HeartQueries

/// `--meta KEY=VALUE` (repeatable), HealthKit's metadata predicate: one key repeated allows any of its values,
/// different keys must all match. Sent as the `metadata` parameter (a string, or an array of allowed strings).
struct MetadataOptions: ParsableArguments {
    @Option(help: "Only what has metadata KEY=VALUE (repeatable: a key given twice allows either value; different keys must all match).")
    var meta: [String] = []

    func validate() throws { try Self.validate(meta) }

    /// `--meta` takes KEY=VALUE with a non-empty key.
    static func validate(_ meta: [String]) throws {
        for m in meta where !m.contains("=") || m.hasPrefix("=") {
            throw ValidationError("--meta takes KEY=VALUE, not '\(m)'")
        }
    }

    /// The `metadata` parameter: nil without `--meta`.
    var allowed: [String: AllowedValues]? {
        guard !meta.isEmpty else { return nil }
        var allowed: [String: [String]] = [:]
        for m in meta {
            let parts = m.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            allowed[String(parts[0]), default: []].append(parts.count > 1 ? String(parts[1]) : "")
        }
        return allowed.mapValues { AllowedValues($0) }
    }
}

/// `--session UUID` and `--meta`: which samples a listing (series, stats, hrv, export) looks at, beside the range.
struct SampleFilterOptions: ParsableArguments {
    @Option(help: "Only what was recorded in this session (over its span unless --from/--to are given).")
    var session: String?
    @OptionGroup var metadata: MetadataOptions

    /// `range` narrowed to this session and metadata.
    func scope(_ range: RangeOptions) -> RangeParams {
        var scope = range.scope
        scope.session = session
        scope.metadata = metadata.allowed
        return scope
    }
}
