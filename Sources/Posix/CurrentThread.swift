import Glibc

/// Settings of the calling thread, for the daemon's own long-lived threads.
public enum CurrentThread {
    /// Names the calling thread as the kernel shows it (`top -H`, `perf`, /proc/PID/task/TID/comm; at most 15
    /// bytes), through /proc: `Thread.name` does not reach the kernel, and `pthread_setname_np` is hidden from Swift.
    public static func setName(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Puts the calling thread in the `SCHED_BATCH` class: the same share of the CPU, but the scheduler never lets
    /// its wake-up preempt the running thread. For a background thread that the capture thread wakes (the store
    /// writer): the capture thread finishes its work and goes back to sleep first, instead of being switched out
    /// and in again around the writer. Returns whether it was applied.
    @discardableResult
    public static func setBatchScheduling() -> Bool {
        var parameters = sched_param(sched_priority: 0)
        return sched_setscheduler(0, 3 /* SCHED_BATCH, hidden behind _GNU_SOURCE */, &parameters) == 0
    }

    /// Sets the calling thread's nice value (Linux: a per-thread attribute; raising it needs no privilege), so the
    /// scheduler gives other threads the CPU first when they want it. Returns whether it was applied.
    @discardableResult
    public static func setNice(_ nice: Int32) -> Bool {
        setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) == 0
    }
}
