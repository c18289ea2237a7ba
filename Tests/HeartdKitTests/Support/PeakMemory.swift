import Foundation
import TestBus

/// A tool run to completion with its peak resident memory (`PeakMemoryWaiter`). Standard output goes to `output`
/// (default /dev/null).
struct PeakMemory {
    var status: Int32
    /// KiB.
    var peakKiB: Int

    var peakMiB: Double { Double(peakKiB) / 1024 }

    static func run(_ path: String, _ arguments: [String], output: String = "/dev/null") throws -> PeakMemory {
        let r = try runTool("/usr/bin/python3", ["-c", PeakMemoryWaiter.script, output, path] + arguments, timeout: 300)
        guard r.status == 0, let peak = PeakMemoryWaiter.parse(r.out) else {
            throw DaemonProcess.Failure(description: "python3 (scripts/setup.sh installs it) could not run \(path): \(r.err)")
        }
        return PeakMemory(status: peak.status, peakKiB: Int(peak.peakKiB))
    }
}
