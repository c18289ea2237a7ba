import Foundation
import Glibc
import TestBus

/// A process run to its end with its wall time and peak resident memory: the child's high-water mark (VmHWM), as
/// `wait4` gives it (`PeakMemoryWaiter`), and its wall time from fork to exit, without the waiter's python start.
/// Standard output goes to `output`.
struct ChildRun {
    var wall: Double
    var peakBytes: Int64
    var status: Int32

    static func run(_ path: String, _ arguments: [String], output: String = "/dev/null") throws -> ChildRun {
        let r = try ReplayBenchmark.timed("/usr/bin/env", ["python3", "-c", PeakMemoryWaiter.script, output, path] + arguments)
        guard let run = PeakMemoryWaiter.parseRun(r.output) else { throw BenchmarkError("no peak memory for \(path): \(r.output)") }
        // The tool's own wall time, from fork to its end, as the waiter measured it (not python's start).
        return ChildRun(wall: run.wallSeconds, peakBytes: run.peakKiB * 1024, status: run.status)
    }
}

/// The resident memory of a running process from /proc/PID/status: now (VmRSS) and its peak (VmHWM), which
/// `resetPeak` sets back to now (`clear_refs` 5), so the peak of one read in a long-lived daemon can be taken.
enum ProcessMemory {
    static func field(_ pid: Int32, _ name: String) -> Int64? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            let kib = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int64($0) }
            return kib.map { $0 * 1024 }
        }
        return nil
    }

    static func rss(_ pid: Int32) -> Int64? { field(pid, "VmRSS") }
    static func peak(_ pid: Int32) -> Int64? { field(pid, "VmHWM") }

    static func resetPeak(_ pid: Int32) {
        try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)
    }
}
