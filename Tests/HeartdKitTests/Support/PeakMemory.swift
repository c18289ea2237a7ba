import Foundation

/// A tool run to completion with its peak resident memory: the child's high-water mark (VmHWM), as `wait4` gives
/// it (`ru_maxrss`). A small python3 parent forks and waits for the tool: a child spawned by this test process
/// itself would start its count at this process's size (vfork shares it until exec, and the kernel keeps the
/// larger of the two), which says nothing of the tool. Standard output goes to `output` (default /dev/null).
struct PeakMemory {
    var status: Int32
    /// KiB.
    var peakKiB: Int

    var peakMiB: Double { Double(peakKiB) / 1024 }

    static let waiter = """
import os, sys
out, argv = sys.argv[1], sys.argv[2:]
pid = os.fork()
if pid == 0:
    os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.execv(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""

    static func run(_ path: String, _ arguments: [String], output: String = "/dev/null") throws -> PeakMemory {
        let r = try runTool("/usr/bin/python3", ["-c", waiter, output, path] + arguments, timeout: 300)
        let fields = r.out.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard r.status == 0, fields.count == 2 else {
            throw DaemonProcess.Failure(description: "python3 (scripts/setup.sh installs it) could not run \(path): \(r.err)")
        }
        return PeakMemory(status: Int32(fields[1]), peakKiB: fields[0])
    }
}
