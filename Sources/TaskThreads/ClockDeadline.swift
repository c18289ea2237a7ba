import Posix

/// Turns a clock's instant or delay into the CLOCK_MONOTONIC nanoseconds the pool's threads wait for.
///
/// The delay is taken on the job's own clock (`clock.now.duration(to:)`) and added to the monotonic time read just
/// after it, rounded up, so a job never runs early by the job's clock: `ContinuousClock` (which also counts time
/// the machine spent suspended) and `SuspendingClock` alike, and any clock whose `Duration` is `Swift.Duration`. A
/// suspend while the job waits makes a `ContinuousClock` job late by the time suspended (a Raspberry Pi capturing
/// does not suspend). Swift 6.3 offers no way to convert a clock with a `Duration` type of its own (the proposed
/// `Clock.convert` is not in its interface): such a job is run at once. No code in heartd or its dependencies
/// has such a clock.
enum ClockDeadline {
    static func monotonic<C: Clock>(at instant: C.Instant, clock: C) -> UInt64 {
        let delay = clock.now.duration(to: instant)
        return monotonic(after: delay)
    }

    /// `now`: the monotonic time to count from (read after the job's clock, so the delay only grows).
    static func monotonic<D: DurationProtocol>(after delay: D, now: UInt64 = MonotonicClock.nanoseconds()) -> UInt64 {
        guard let delay = delay as? Duration, delay > .zero else { return now }
        let (seconds, attoseconds) = delay.components
        let nanoseconds = attoseconds / 1_000_000_000 + (attoseconds % 1_000_000_000 == 0 ? 0 : 1)
        let (whole, overflow) = UInt64(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let (span, carry) = whole.addingReportingOverflow(UInt64(nanoseconds))
        let (sum, carry2) = now.addingReportingOverflow(span)
        return overflow || carry || carry2 ? .max : sum
    }
}
