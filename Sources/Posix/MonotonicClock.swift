import Glibc

/// CLOCK_MONOTONIC: what intervals are measured with (beat spacing, deadlines, batching), so a change of the wall
/// clock never moves them. The one place heartd reads it.
public enum MonotonicClock {
    /// Seconds (arbitrary origin; only differences matter).
    public static func now() -> Double {
        let ts = timespecNow()
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Nanoseconds (the read batching's clock: integer arithmetic on the hot path).
    public static func nanoseconds() -> UInt64 {
        let ts = timespecNow()
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    private static func timespecNow() -> timespec {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return ts
    }
}

/// CPU time of the whole process (CLOCK_PROCESS_CPUTIME_ID), in seconds.
public enum ProcessCPUClock {
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
