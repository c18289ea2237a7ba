/// How the tests and heartbench take a tool's peak resident memory: its high-water mark (VmHWM) as `wait4` gives it
/// (`ru_maxrss`), through a small python3 parent that forks and waits for the tool. A child spawned by the measuring
/// process itself would start its count at that process's size (vfork shares it until exec, and the kernel keeps the
/// larger of the two), which says nothing of the tool. The tool's standard output goes to the file named first.
public enum PeakMemoryWaiter {
    /// `python3 -c script OUTPUT TOOL ARGS…` prints "PEAK_KIB EXIT_STATUS WALL_NS": the tool's wall time from fork to
    /// its end, without python's own start (~0.15 s, which a timer around the whole command would add to every read).
    public static let script = """
import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
start = time.monotonic_ns()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), 1)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.execv(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
print(usage.ru_maxrss, os.waitstatus_to_exitcode(status), time.monotonic_ns() - start)
"""

    /// The peak (KiB) and the tool's exit status from what `script` printed; nil when it printed something else.
    public static func parse(_ output: String) -> (peakKiB: Int64, status: Int32)? {
        parseRun(output).map { ($0.peakKiB, $0.status) }
    }

    /// The peak (KiB), exit status and the tool's own wall time (seconds) from what `script` printed.
    public static func parseRun(_ output: String) -> (peakKiB: Int64, status: Int32, wallSeconds: Double)? {
        let fields = output.split(whereSeparator: \.isWhitespace).compactMap { Int64($0) }
        guard fields.count == 3 else { return nil }
        return (fields[0], Int32(fields[1]), Double(fields[2]) / 1e9)
    }
}
