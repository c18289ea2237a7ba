import Posix
@testable import TaskThreads
import Testing

@Suite struct ClockDeadlineTests {
    /// A clock whose Duration is not Swift.Duration: Swift 6.3 has no conversion for it.
    struct TickClock: Clock {
        struct Ticks: DurationProtocol {
            var count: Int
            static var zero: Ticks { Ticks(count: 0) }
            static func + (a: Ticks, b: Ticks) -> Ticks { Ticks(count: a.count + b.count) }
            static func - (a: Ticks, b: Ticks) -> Ticks { Ticks(count: a.count - b.count) }
            static func / (a: Ticks, b: Int) -> Ticks { Ticks(count: a.count / b) }
            static func * (a: Ticks, b: Int) -> Ticks { Ticks(count: a.count * b) }
            static func / (a: Ticks, b: Ticks) -> Double { Double(a.count) / Double(b.count) }
            static func < (a: Ticks, b: Ticks) -> Bool { a.count < b.count }
        }
        struct Instant: InstantProtocol {
            var ticks: Int
            func advanced(by duration: Ticks) -> Instant { Instant(ticks: ticks + duration.count) }
            func duration(to other: Instant) -> Ticks { Ticks(count: other.ticks - ticks) }
            static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.ticks < rhs.ticks }
        }
        var now: Instant { Instant(ticks: 0) }
        var minimumResolution: Ticks { Ticks(count: 1) }
        func sleep(until deadline: Instant, tolerance: Ticks?) async throws {}
    }

    @Test func aDelayIsRoundedUpToWholeNanosecondsNeverDown() {
        let now: UInt64 = 1_000_000_000
        let justOverOne = Duration.nanoseconds(1) + Duration(secondsComponent: 0, attosecondsComponent: 1)
        #expect(ClockDeadline.monotonic(after: justOverOne, now: now) == now + 2)
        #expect(ClockDeadline.monotonic(after: Duration.microseconds(1500), now: now) == now + 1_500_000)
        #expect(ClockDeadline.monotonic(after: Duration.seconds(3), now: now) == now + 3_000_000_000)
    }

    @Test func instantsOfBothStandardClocksBecomeMonotonicDeadlines() {
        let before = MonotonicClock.nanoseconds()
        let continuous = ClockDeadline.monotonic(at: ContinuousClock.now + .milliseconds(30), clock: ContinuousClock())
        let suspending = ClockDeadline.monotonic(at: SuspendingClock.now + .milliseconds(30), clock: SuspendingClock())
        let after = MonotonicClock.nanoseconds()
        for deadline in [continuous, suspending] {
            #expect(deadline >= before + 30_000_000 - 1_000_000 && deadline <= after + 30_000_000)
        }
    }

    @Test func thePastIsNowAndTheFarFutureSaturates() {
        let now = MonotonicClock.nanoseconds()
        #expect(ClockDeadline.monotonic(after: Duration.seconds(-5)) >= now)
        #expect(ClockDeadline.monotonic(after: Duration.seconds(Int64.max)) == .max)
        #expect(ClockDeadline.monotonic(at: TickClock.Instant(ticks: 1000), clock: TickClock()) < now + 1_000_000_000)
    }
}
