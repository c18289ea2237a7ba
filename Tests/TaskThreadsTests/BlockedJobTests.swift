@_spi(ExperimentalScheduling) import _Concurrency
import Foundation
import Synchronization
import TaskThreads
import Testing

/// The rule for threads (`PoolState`): jobs that block their threads make the pool start more, up to its cap, and
/// the extra threads retire once idle; an idle pool wakes nothing.
@Suite struct BlockedJobTests {
    @Test func jobsBlockingEveryThreadDoNotStarveTheNextOne() async {
        let pool = TaskThreadPool(.init(name: "tt-blocked", keptThreads: 2, maximumThreads: 8, retireAfter: .milliseconds(200)))
        defer { pool.stop() }
        let gate = ThreadGate()
        let safety = Task { try? await Task.sleep(for: .seconds(2)); gate.open() }  // fail, never hang
        defer { safety.cancel() }
        let blocked = (0..<3).map { _ in Task(executorPreference: pool.executor) { gate.wait() } }
        let start = PoolThreads.seconds()
        await PoolThreads.on(pool) {}
        let waited = PoolThreads.seconds() - start
        #expect(waited < 0.2, "a job waited \(waited) s behind three blocked ones")
        #expect(pool.statistics.threads == 4)
        gate.open()
        for task in blocked { await task.value }
        // The two threads above the kept ones retire after 200 ms without work.
        #expect(await eventually { pool.statistics.threads == 2 })
        #expect(pool.statistics.threadsExited == 2)
    }

    @Test func theCapHoldsAJobUntilAThreadIsFree() async {
        let pool = TaskThreadPool(.init(name: "tt-cap", keptThreads: 1, maximumThreads: 2))
        defer { pool.stop() }
        let gate = ThreadGate()
        let blocked = (0..<2).map { _ in Task(executorPreference: pool.executor) { gate.wait() } }
        #expect(await eventually { pool.statistics.jobsRun == 2 })
        let ran = Flag()
        let third = Task(executorPreference: pool.executor) { ran.set() }
        try? await Task.sleep(for: .milliseconds(100))  // a check that nothing happens: the third waits
        #expect(!ran.isSet)
        #expect(pool.statistics.threads == 2)
        gate.open()
        await third.value
        for task in blocked { await task.value }
    }

    /// The thread watching the clock runs a timed job that is due, and that job blocks the thread: another parked
    /// thread takes the watch, and a sleep due later still ends on time.
    @Test(.enabled(if: TaskThreads.isCompiledIn, "the pool takes timed jobs only with the trait CustomGlobalExecutor"))
    func aTimedJobBlockingTheWatchingThreadDoesNotDelayTheNextSleep() async {
        // On this shared machine a job preempted for 5 ms would count as blocked: only the clock is tested here.
        let pool = TaskThreadPool(.init(name: "tt-watch", keptThreads: 2, maximumThreads: 4, blockedAfter: .seconds(10)))
        defer { pool.stop() }
        await PoolThreads.on(pool) { await withTaskGroup(of: Void.self) { g in for _ in 0..<2 { g.addTask { usleep(1000) } } } }
        #expect(await eventually { pool.statistics.threads == 2 && pool.parkedThreads == 2 }, "\(pool.statistics) parked \(pool.parkedThreads)")
        let gate = ThreadGate()
        let safety = Task { try? await Task.sleep(for: .seconds(1)); gate.open() }  // fail, never hang
        let sleeper = Task(executorPreference: pool.executor) { () -> Duration in
            let start = ContinuousClock.now
            try? await Task.sleep(for: .milliseconds(80))
            return ContinuousClock.now - start
        }
        #expect(await eventually { pool.statistics.timedJobs == 1 && pool.parkedThreads == 2 })
        let blocker = Task(executorPreference: DelayingExecutor(pool: pool, delay: .milliseconds(30))) { gate.wait() }
        let slept = await sleeper.value
        gate.open()
        await blocker.value
        safety.cancel()
        #expect(slept < .milliseconds(150), "the sleep ended after \(slept)")
    }

    /// A pattern like the simulator's — a task wakes from a short sleep and hands a value to another task — while
    /// a long sleep waits: the kept threads carry it, no thread beyond them is started.
    @Test func aSteadyStreamNeedsNoExtraThread() async {
        // A job preempted for 5 ms on a loaded machine would count as blocked: the rule for jobs from pool threads
        // alone is tested here.
        let pool = TaskThreadPool(.init(name: "tt-stream", keptThreads: 2, maximumThreads: 8, blockedAfter: .seconds(10)))
        defer { pool.stop() }
        let (values, continuation) = AsyncStream<Int>.makeStream()
        let consumer = Task(executorPreference: pool.executor) { await values.reduce(0) { count, _ in count + 1 } }
        let long = Task(executorPreference: pool.executor) { try? await Task.sleep(for: .seconds(30)) }
        #expect(await eventually { pool.parkedThreads == pool.statistics.threads })
        let producer = Task(executorPreference: pool.executor) {
            for i in 0..<40 {
                try? await Task.sleep(for: .milliseconds(5))
                continuation.yield(i)
            }
            continuation.finish()
        }
        await producer.value
        #expect(await consumer.value == 40)
        #expect(pool.statistics.threadsStarted <= 2, "\(pool.statistics)")
        long.cancel()
        _ = await long.value
    }

    /// With threads parked and a job waiting for its time, nothing runs until that time: no thread wakes to check.
    @Test func anIdlePoolWakesNoThread() async throws {
        let pool = TaskThreadPool(.init(name: "tt-idle", keptThreads: 3))
        defer { pool.stop() }
        await PoolThreads.on(pool) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<50 { group.addTask { usleep(1000) } }
            }
        }
        let sleeper = Task(executorPreference: pool.executor) { try await Task.sleep(for: .seconds(30)) }
        #expect(await eventually { pool.parkedThreads == pool.statistics.threads })
        try await Task.sleep(for: .milliseconds(100))  // the watcher's last look, 5 ms after the burst's last job
        let before = PoolThreads.slices(named: "tt-idle")
        try await Task.sleep(for: .milliseconds(1500))
        let after = PoolThreads.slices(named: "tt-idle")
        #expect(before.count >= 2)
        #expect(after == before, "threads ran while idle: \(before) → \(after)")
        sleeper.cancel()
        _ = await sleeper.result
    }
}

/// Hands each job to the pool as a timed job, `delay` from now: a task whose first job is a timed job of the pool.
final class DelayingExecutor: TaskExecutor, @unchecked Sendable {
    let pool: TaskThreadPool
    let delay: Duration

    init(pool: TaskThreadPool, delay: Duration) {
        self.pool = pool
        self.delay = delay
    }

    func enqueue(_ job: consuming ExecutorJob) {
        (pool.executor as! any SchedulingExecutor).enqueue(job, after: delay, tolerance: nil, clock: ContinuousClock())
    }
}
