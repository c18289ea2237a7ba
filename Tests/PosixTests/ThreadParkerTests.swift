import Foundation
import Posix
import Testing

@Suite struct ThreadParkerTests {
    @Test func anUnparkGivenBeforeParkIsNotLost() {
        let parker = ThreadParker()
        parker.unpark()
        let start = MonotonicClock.now()
        #expect(parker.park(until: MonotonicClock.nanoseconds() + 2_000_000_000))
        #expect(MonotonicClock.now() - start < 0.5)
    }

    @Test func aParkWithADeadlineReturnsAtItNotBefore() {
        let parker = ThreadParker()
        let deadline = MonotonicClock.nanoseconds() + 50_000_000
        #expect(!parker.park(until: deadline))
        let now = MonotonicClock.nanoseconds()
        #expect(now >= deadline)
        #expect(now - deadline < 40_000_000, "late by \(Double(now - deadline) / 1e6) ms")
    }

    @Test func anotherThreadUnparksAThreadParkedWithoutDeadline() {
        let parker = ThreadParker()
        let start = MonotonicClock.now()
        let thread = Thread {
            usleep(30_000)  // the parked thread must really wait for it
            parker.unpark()
        }
        thread.start()
        #expect(parker.park())
        let waited = MonotonicClock.now() - start
        #expect(waited >= 0.03 && waited < 1)
    }
}
