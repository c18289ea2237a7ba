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

    @Test func belowTheKeptCountAThreadStartsAtOnceAboveItTheWatcherWaitsForAJobToRunLong() throws {
        defer { held.finish() }
        var s = state(kept: 1, maximum: 3)
        let jobs = held.make(3)
        let first = s.append(jobs[0])
        let kept = try #require(first.start)
        #expect(kept.kept && first.unpark.isEmpty && first.startWatcher == nil)
        #expect(s.append(jobs[1]).start == nil, "one start at a time")
        // The kept thread takes a job; the other waits behind it, which has just started: no thread, the watcher.
        guard case .run(_, let calls) = s.next(for: kept, arrival: .started, idleSince: nil) else {
            Issue.record("no job"); return
        }
        #expect(calls.start == nil)
        #expect(calls.startWatcher != nil)
        let started = kept.jobStarted
        guard case .park(let until) = s.watch(now: started + 1_000_000) else { Issue.record("did not park"); return }
        #expect(until == started + 5_000_000)
        // At that time the job has run 5 ms: probably blocked, so the job behind it gets a thread of its own.
        guard case .start(let extra) = s.watch(now: started + 5_000_000) else { Issue.record("no start"); return }
        #expect(!extra.kept && s.threads == 2)
        // A job arriving behind a job that has run long starts the next thread itself (once that one is up).
        kept.jobStarted -= 10_000_000
        _ = s.append(jobs[2])
        guard case .run(_, let more) = s.next(for: extra, arrival: .started, idleSince: nil) else {
            Issue.record("no job"); return
        }
        #expect(more.start != nil && s.threads == 3, "evidence: the kept thread's job has run long")
        if case .park(nil) = s.watch(now: started + 6_000_000) {} else { Issue.record("the watcher should rest") }
    }

    @Test func atTheCapNoThreadStartsAndTheWatcherRests() throws {
        defer { held.finish() }
        var s = state(kept: 1, maximum: 1)
        let jobs = held.make(2)
        let kept = try #require(s.append(jobs[0]).start)
        guard case .run(_, let calls) = s.next(for: kept, arrival: .started, idleSince: nil) else {
            Issue.record("no job"); return
        }
        kept.jobStarted -= 10_000_000
        let behind = s.append(jobs[1])
        #expect(calls.start == nil && calls.startWatcher == nil && behind.start == nil && behind.startWatcher == nil)
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
        #expect(s.append(held.make(1).last!).unpark.map(ObjectIdentifier.init) == [ObjectIdentifier(b)])
        #expect(s.append(held.make(1).last!).unpark.map(ObjectIdentifier.init) == [ObjectIdentifier(a)])
        let last = s.append(held.make(1).last!)
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
