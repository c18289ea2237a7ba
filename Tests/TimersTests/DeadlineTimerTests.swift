import Foundation
import Synchronization
import TestBus
import Testing
import Timers

/// The timer that replaced the periodic ticks: fires at the earliest key's deadline, never before it is
/// asked to (beyond the tolerance) and never late, and costs no wake-up for a deadline that keeps moving.
@Suite struct DeadlineTimerTests {
    final class Fires: Sendable {
        let log = Mutex<[(time: Double, keys: [Int])]>([])
        var count: Int { log.withLock { $0.count } }
        var keys: [Int] { log.withLock { $0.flatMap(\.keys) } }
        func add(_ t: Double, _ keys: [Int]) { log.withLock { $0.append((t, keys)) } }
    }

    /// A timer that records every firing.
    func recordingTimer(tolerance: Double) throws -> (DeadlineTimer, Fires) {
        let fires = Fires()
        return (try DeadlineTimer(name: "test-timer", tolerance: tolerance) { _, now, keys in fires.add(now, keys) }, fires)
    }

    @Test func firesEachKeyAtItsDeadlineNotBefore() async throws {
        let (timer, fires) = try recordingTimer(tolerance: 0.05)
        defer { timer.stop() }
        let start = DeadlineTimer.now()
        timer.set(7, start + 0.6)
        timer.set(3, start + 0.2)
        #expect(await eventually(timeout: 5, every: .milliseconds(10)) { fires.count >= 1 })
        let first = try #require(fires.log.withLock { $0.first })
        #expect(first.keys == [3])
        #expect(first.time >= start + 0.2, "not before the deadline")
        #expect(first.time < start + 0.35, "not much after it either")
        #expect(await eventually(timeout: 5, every: .milliseconds(10)) { fires.keys == [3, 7] }, "key 7 fired in its turn")
        #expect(fires.count == 2, "key 3 fired once")
        #expect((fires.log.withLock { $0.last?.time } ?? 0) >= start + 0.6, "key 7 not before its deadline")
    }

    @Test func aDeadlineMovedLaterWithinTheToleranceIsNotRearmed() throws {
        let timer = try DeadlineTimer(name: "test-timer", tolerance: 0.25) { _, _, _ in }
        defer { timer.stop() }
        let base = DeadlineTimer.now() + 60
        timer.set(0, base)
        timer.set(0, base + 0.1)  // a stream's "two intervals after the last value", moving on
        #expect(timer.armedDeadline == base, "later by less than the tolerance: the armed time stays")
        timer.set(0, base + 20)
        #expect(timer.armedDeadline == base, "later by less than half the time remaining (60 s): the armed time stays")
        timer.set(0, base + 40)
        #expect(timer.armedDeadline == base + 40, "later by more: re-armed")
        timer.set(0, base + 0.5)
        #expect(timer.armedDeadline == base + 0.5, "earlier: always re-armed")
        timer.set(0, nil)
        #expect(timer.armedDeadline == base + 0.5, "nothing due: the armed time may fire early, harmlessly")
    }

    /// A silent-stop deadline pushed back by every value: kept armed while it moves later by up to half the time
    /// remaining (no syscall per value), and still fired at its real deadline, never late, when the values stop.
    @Test func aDeadlinePushedBackWithinHalfTheTimeRemainingStaysArmedAndStillFiresNeverLate() async throws {
        let (timer, fires) = try recordingTimer(tolerance: 0.01)
        defer { timer.stop() }
        let start = DeadlineTimer.now()
        timer.set(1, start + 0.6)
        let armed = timer.armedDeadline
        #expect(armed == start + 0.6)
        for push in [0.1, 0.2] {  // far beyond the tolerance, within half of the ~0.6 s remaining
            timer.set(1, start + 0.6 + push)
            #expect(timer.armedDeadline == armed, "pushed back by \(push) s: not re-armed")
        }
        #expect(await eventually(timeout: 5, every: .milliseconds(10)) { fires.keys == [1] })
        let log = fires.log.withLock { $0 }
        #expect(log.map(\.keys) == [[], [1]], "an early wake-up at the armed time, then key 1")
        let fired = try #require(log.last?.time)
        #expect(fired >= start + 0.8, "never before the deadline it was moved to")
        #expect(fired < start + 0.95, "nor much after it")
        timer.set(1, DeadlineTimer.now() + 30)
        timer.set(1, DeadlineTimer.now() + 60)  // later by more than half of the ~30 s remaining
        #expect(timer.armedDeadline > DeadlineTimer.now() + 50, "re-armed")
    }

    @Test func anEarlyWakeUpReportsNoKeyAndWaitsForTheMovedDeadline() async throws {
        let (timer, fires) = try recordingTimer(tolerance: 0.3)
        defer { timer.stop() }
        let start = DeadlineTimer.now()
        timer.set(1, start + 0.1)
        timer.set(1, start + 0.3)  // within the tolerance: still armed for 0.1
        #expect(await eventually(timeout: 5, every: .milliseconds(10)) { fires.count >= 1 })
        #expect(fires.log.withLock { $0.map(\.keys) } == [[]], "woke at 0.1 with nothing due")
        #expect(await eventually(timeout: 5, every: .milliseconds(10)) { fires.keys == [1] }, "then fired key 1 at its deadline")
        #expect((fires.log.withLock { $0.last?.time } ?? 0) >= start + 0.3)
    }

    @Test func aDeadlineInThePastFiresOnceAndOneSetInThePastByFireDoesNotSpin() async throws {
        let (timer, once) = try recordingTimer(tolerance: 0.25)
        defer { timer.stop() }
        timer.set(0, DeadlineTimer.now() - 1)
        try await Task.sleep(for: .milliseconds(300))  // a bounded wait: "once" means no second firing within it
        #expect(once.count == 1)

        let again = Fires()
        let stubborn = try DeadlineTimer(name: "test-timer", tolerance: 0.25) { timer, now, keys in
            again.add(now, keys)
            timer.set(0, now - 1)  // a user that keeps asking for the past
        }
        defer { stubborn.stop() }
        stubborn.set(0, DeadlineTimer.now())
        try await Task.sleep(for: .milliseconds(300))  // a window of fixed length: the firings in it are counted
        #expect(again.count >= 2)
        #expect(again.count <= 8, "held back by 50 ms per round, not a busy loop: \(again.count)")
    }
}
