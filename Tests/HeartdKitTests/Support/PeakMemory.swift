import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tool run to completion with its peak resident memory: the kernel's high-water mark of the child (what
/// /proc/PID/status calls VmHWM, read at its end as `ru_maxrss` by `wait4`), so a test can bound a read's memory
/// in the process that does it. Standard output goes to `output` (default /dev/null).
struct PeakMemory {
    var status: Int32
    /// KiB.
    var peakKiB: Int

    var peakMiB: Double { Double(peakKiB) / 1024 }

    static func run(_ path: String, _ arguments: [String], output: String = "/dev/null") throws -> PeakMemory {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw DaemonProcess.Failure(description: "cannot start \(path): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        // WEXITSTATUS: the exit code when it exited, else -1.
        let exited = (status & 0x7f) == 0
        return PeakMemory(status: exited ? (status >> 8) & 0xff : -1, peakKiB: usage.ru_maxrss)
    }
}
