import Foundation
import Glibc

/// A process run to its end with its wall time and peak resident memory: the kernel's high-water mark of the child
/// (VmHWM, read at its end as `ru_maxrss` by `wait4`). Standard output goes to `output`.
struct ChildRun {
    var wall: Double
    var peakBytes: Int64
    var status: Int32

    static func run(_ path: String, _ arguments: [String], output: String = "/dev/null") throws -> ChildRun {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkError("cannot start \(path): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0
        return ChildRun(wall: (clock.now - start).seconds, peakBytes: Int64(usage.ru_maxrss) * 1024,
                        status: exited ? (status >> 8) & 0xff : -1)
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
