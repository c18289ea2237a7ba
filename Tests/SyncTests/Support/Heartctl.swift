import Foundation
import TestBus
import Testing

/// Runs the built heartctl with `arguments` (its output through a file in `dir`); its exit status and standard output.
func runHeartctl(_ arguments: [String], in dir: String) async throws -> (status: Int32, output: String) {
    let out = dir + "/heartctl-\(UUID().uuidString.prefix(6)).out"
    _ = FileManager.default.createFile(atPath: out, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try BuiltProducts.path("heartctl"))
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
    try process.run()
    #expect(await waitForExit(process, seconds: 120))
    return (process.terminationStatus, try String(contentsOfFile: out, encoding: .utf8))
}

/// heartctl's peak resident memory (KiB, `PeakMemoryWaiter`) and exit status for `arguments`.
func heartctlPeakMemory(_ arguments: [String], in dir: String) throws -> (peakKiB: Int64, status: Int32) {
    let report = dir + "/peak-\(UUID().uuidString.prefix(6)).txt"
    _ = FileManager.default.createFile(atPath: report, contents: nil)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", PeakMemoryWaiter.script, "/dev/null", try BuiltProducts.path("heartctl")] + arguments
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: report))
    try process.run()
    process.waitUntilExit()
    let text = try String(contentsOfFile: report, encoding: .utf8)
    guard let parsed = PeakMemoryWaiter.parse(text) else {
        throw MeasureFailure(description: "python3 (scripts/setup.sh installs it) could not measure heartctl: \(text)")
    }
    return parsed
}

struct MeasureFailure: Error, CustomStringConvertible { let description: String }

/// Whether two JSON documents are equal, numbers within a relative `tolerance` (sums added in another order).
func sameJSON(_ a: Any, _ b: Any, tolerance: Double = 1e-9) -> Bool {
    switch (a, b) {
    case let (x as [String: Any], y as [String: Any]):
        return Set(x.keys) == Set(y.keys) && x.allSatisfy { key, value in sameJSON(value, y[key]!, tolerance: tolerance) }
    case let (x as [Any], y as [Any]):
        return x.count == y.count && zip(x, y).allSatisfy { sameJSON($0, $1, tolerance: tolerance) }
    case let (x as NSNumber, y as NSNumber):
        let (u, v) = (x.doubleValue, y.doubleValue)
        return u == v || abs(u - v) <= tolerance * max(abs(u), abs(v))
    case let (x as String, y as String):
        return x == y
    case (is NSNull, is NSNull):
        return true
    default:
        return false
    }
}
