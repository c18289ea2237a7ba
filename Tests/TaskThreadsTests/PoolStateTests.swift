import Posix
import Synchronization
@testable import TaskThreads
import Testing

/// Real jobs to put in a `PoolState`: tasks whose first job an executor keeps instead of running; `finish` runs
/// them (the tasks then end).
final class HeldJobs: TaskExecutor, @unchecked Sendable {
    private let jobs = Mutex<[UnownedJob]>([])

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
    }

    /// `count` new jobs (each the first job of a task that does nothing).
    func make(_ count: Int) -> [UnownedJob] {
        let before = jobs.withLock { $0.count }
        for _ in 0..<count { Task(executorPreference: self) {} }
        return jobs.withLock { Array($0[before...]) }
    }

    func finish() {
        for job in jobs.withLock({ list in defer { list = [] }; return list }) {
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// The rule for threads, step by step, without threads.
@Suite struct PoolStateTests {
    static let second: UInt64 = 1_000_000_000
    let held = HeldJobs()

    func state(kept: Int = 2, maximum: Int = 3) -> PoolState {
        PoolState(limits: .init(kept: kept, maximum: maximum, retireAfter: 60 * Self.second, longJob: 5_000_000))
    }

    /// A thread that has started and parked (no work was waiting).
    func parked(_ s: inout PoolState, kept: Bool) -> Worker {
        let worker = Worker(kept: kept)
        s.threads += 1
        if kept { s.keptThreads += 1 }
        if case .park = s.next(for: worker, arrival: .afterJob, idleSince: nil) {} else { Issue.record("did not park") }
        return worker
    }

    @Test func aJobWithNoParkedThreadStartsOneAtATimeUpToTheCap() throws {
        defer { held.finish() }
        var s = state(kept: 1, maximum: 2)
        let jobs = held.make(3)
        let first = s.append(jobs[0], from: .outside)
        #expect(first.start?.kept == true && first.unpark.isEmpty)
        #expect(s.append(jobs[1], from: .outside).start == nil, "one start at a time")
        // The started thread takes a job and another waits: the next thread starts, beyond the kept one.
        guard case .run(_, let calls) = s.next(for: first.start!, arrival: .started, idleSince: nil) else {
            Issue.record("no job"); return
        }
        let second = try #require(calls.start)
        #expect(!second.kept && s.threads == 2)
        _ = s.append(jobs[2], from: .outside)
        guard case .run(_, let more) = s.next(for: second, arrival: .started, idleSince: nil) else {
            Issue.record("no job"); return
        }
        #expect(more.start == nil && s.threads == 2, "the cap")
    }

    @Test func aJobFromAPoolJobStartsAThreadOnlyWhenARunningJobHasRunLong() throws {
        defer { held.finish() }
        var s = state(kept: 1, maximum: 3)
        let jobs = held.make(3)
        let kept = try #require(s.append(jobs[0], from: .outside).start)
        guard case .run = s.next(for: kept, arrival: .started, idleSince: nil) else { Issue.record("no job"); return }
        // The job just started and enqueues another: its thread is about to be free and takes it.
        #expect(s.append(jobs[1], from: .poolThread).start == nil)
        // It has now run 10 ms: probably blocked, so the next job gets a thread of its own.
        kept.jobStarted -= 10_000_000
        #expect(s.append(jobs[2], from: .poolThread).start?.kept == false)
    }

    @Test func theMostRecentlyParkedKeptThreadIsCalledAndTheTimekeeperLast() {
        defer { held.finish() }
        var s = state(kept: 2, maximum: 4)
        let a = parked(&s, kept: true)
        let b = parked(&s, kept: true)
        // A timed job: the next thread to park watches the clock for it.
        _ = s.schedule(held.make(1).last!, deadline: .max - 1, now: 0, fromPoolThread: true)
        #expect(s.timekeeper == nil)
        let c = parked(&s, kept: false)
        #expect(s.timekeeper === c && s.timekeeperDeadline == .max - 1)
        #expect(s.append(held.make(1).last!, from: .outside).unpark.map(ObjectIdentifier.init) == [ObjectIdentifier(b)])
        #expect(s.append(held.make(1).last!, from: .outside).unpark.map(ObjectIdentifier.init) == [ObjectIdentifier(a)])
        let last = s.append(held.make(1).last!, from: .outside)
        #expect(last.unpark.map(ObjectIdentifier.init) == [ObjectIdentifier(c)])
        #expect(s.timekeeper == nil)
    }

    @Test func keptThreadsParkWithoutTimeoutAndExtraOnesRetire() {
        defer { held.finish() }
        var s = state(kept: 1, maximum: 2)
        let kept = parked(&s, kept: true)
        guard case .park(let keptUntil, _) = s.next(for: kept, arrival: .afterPark, idleSince: 0) else { Issue.record("no park"); return }
        #expect(keptUntil == nil)
        let extra = Worker(kept: false)
        s.threads += 1
        guard case .park(let extraUntil, let now) = s.next(for: extra, arrival: .afterJob, idleSince: nil) else { Issue.record("no park"); return }
        #expect(extraUntil == now + 60 * Self.second)
        guard case .exit = s.next(for: extra, arrival: .afterPark, idleSince: now - 60 * Self.second) else { Issue.record("did not retire"); return }
        #expect(s.threads == 1 && s.idle.count == 1)
    }

    @Test func anEarlierTimedJobCallsTheTimekeeperBackALaterOneDoesNot() {
        defer { held.finish() }
        var s = state()
        let keeper = parked(&s, kept: true)
        let later = MonotonicClock.nanoseconds() + 1000 * Self.second  // deadlines are CLOCK_MONOTONIC
        _ = s.schedule(held.make(1).last!, deadline: later, now: 0, fromPoolThread: false)
        // Nobody watched: the parked thread was called to.
        #expect(s.coming == 1)
        guard case .park(let until, _) = s.next(for: keeper, arrival: .afterPark, idleSince: 0) else { Issue.record("no park"); return }
        #expect(until == later && s.timekeeper === keeper)
        #expect(s.schedule(held.make(1).last!, deadline: later + 1, now: 0, fromPoolThread: false).unpark.isEmpty)
        let earlier = s.schedule(held.make(1).last!, deadline: later - 1, now: 0, fromPoolThread: false)
        #expect(earlier.unpark.map(ObjectIdentifier.init) == [ObjectIdentifier(keeper)])
    }

    @Test func aSleepScheduledOnAPoolThreadCallsNoOtherThreadToWatch() {
        defer { held.finish() }
        var s = state()
        _ = parked(&s, kept: true)
        let later = MonotonicClock.nanoseconds() + 1000 * Self.second
        let calls = s.schedule(held.make(1).last!, deadline: later, now: 0, fromPoolThread: true)
        #expect(calls.unpark.isEmpty && calls.start == nil && s.coming == 0)
    }
}
