import Foundation
import Synchronization
import Testing
@testable import HeartdKit

/// The timer that replaced the periodic ticks: fires at the earliest slot's deadline, never before it is
/// asked to (beyond the tolerance) and never late, and costs no wake-up for a deadline that keeps moving.
@Suite struct DeadlineTimerTests {
    final class Fires: Sendable {
        let times = Mutex<[Double]>([])
        var count: Int { times.withLock { $0.count } }
        func add(_ t: Double) { times.withLock { $0.append(t) } }
    }

    @Test func firesAtTheEarliestSlotNotBefore() async throws {
        let fires = Fires()
        let timer = try DeadlineTimer(name: "test-timer", slots: 2, tolerance: 0.05) { _, now in fires.add(now) }
        defer { timer.stop() }
        let start = DeadlineTimer.now()
        timer.set(0, start + 0.6)
        timer.set(1, start + 0.2)
        try await Task.sleep(for: .milliseconds(400))
        let first = try #require(fires.times.withLock { $0.first })
        #expect(first >= start + 0.2, "not before the deadline")
        #expect(first < start + 0.35, "not much after it either")
        #expect(fires.count == 1, "slot 1 was not set again; slot 0 is still ahead")
        try await Task.sleep(for: .milliseconds(400))
        #expect(fires.count == 2, "slot 0 fired in its turn")
    }

    @Test func aDeadlineMovedLaterWithinTheToleranceIsNotRearmed() throws {
        let timer = try DeadlineTimer(name: "test-timer", slots: 1, tolerance: 0.25) { _, _ in }
        defer { timer.stop() }
        let base = DeadlineTimer.now() + 60
        timer.set(0, base)
        timer.set(0, base + 0.1)  // a stream's "two intervals after the last value", moving on
        #expect(timer.armedDeadline == base, "later by less than the tolerance: the armed time stays")
        timer.set(0, base + 1)
        #expect(timer.armedDeadline == base + 1, "later by more: re-armed")
        timer.set(0, base + 0.5)
        #expect(timer.armedDeadline == base + 0.5, "earlier: always re-armed")
        timer.set(0, nil)
        #expect(timer.armedDeadline == base + 0.5, "nothing due: the armed time may fire early, harmlessly")
    }

    @Test func aDeadlineInThePastFiresOnceAndOneSetInThePastByFireDoesNotSpin() async throws {
        let once = Fires()
        let timer = try DeadlineTimer(name: "test-timer", slots: 1, tolerance: 0.25) { _, now in once.add(now) }
        defer { timer.stop() }
        timer.set(0, DeadlineTimer.now() - 1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(once.count == 1)

        let again = Fires()
        let stubborn = try DeadlineTimer(name: "test-timer", slots: 1, tolerance: 0.25) { timer, now in
            again.add(now)
            timer.set(0, now - 1)  // a user that keeps asking for the past
        }
        defer { stubborn.stop() }
        stubborn.set(0, DeadlineTimer.now())
        try await Task.sleep(for: .milliseconds(300))
        #expect(again.count >= 2)
        #expect(again.count <= 8, "held back by 50 ms per round, not a busy loop: \(again.count)")
    }
}
