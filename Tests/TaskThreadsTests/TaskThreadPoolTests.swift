import Foundation
import Synchronization
import TaskThreads
import Testing

/// The pool as tasks see it (through `executorPreference`, the same enqueues as the global executor's).
@Suite struct TaskThreadPoolTests {
    @Test func jobsOfOneEnqueuerRunInTheirOrder() async {
        let pool = TaskThreadPool(.init(name: "tt-order", keptThreads: 1, maximumThreads: 1))
        defer { pool.stop() }
        let order = Recorder<Int>()
        let tasks = (0..<500).map { i in Task(executorPreference: pool.executor) { order.add(i) } }
        for task in tasks { await task.value }
        #expect(order.values == Array(0..<500))
        #expect(PoolThreads.slices(named: "tt-order").count == 1)
    }

    @Test(.enabled(if: TaskThreads.isCompiledIn, "the pool takes timed jobs only with the trait CustomGlobalExecutor"))
    func aTimedJobNeverRunsEarlyAndRunsWithinAFewMilliseconds() async {
        let pool = TaskThreadPool(.init(name: "tt-timed"))
        defer { pool.stop() }
        for milliseconds in [1, 5, 20, 60] {
            let continuous = await PoolThreads.on(pool) {
                let start = ContinuousClock.now
                try? await Task.sleep(for: .milliseconds(milliseconds))
                return ContinuousClock.now - start
            }
            let suspending = await PoolThreads.on(pool) {
                let clock = SuspendingClock()
                let start = clock.now
                try? await clock.sleep(until: start + .milliseconds(milliseconds))
                return clock.now - start
            }
            for slept in [continuous, suspending] {
                #expect(slept >= .milliseconds(milliseconds))
                #expect(slept < .milliseconds(milliseconds + 40), "late by \(slept - .milliseconds(milliseconds))")
            }
        }
        #expect(pool.statistics.timedJobs == 8)
    }

    @Test(.enabled(if: TaskThreads.isCompiledIn, "the pool takes timed jobs only with the trait CustomGlobalExecutor"))
    func timedJobsRunByDeadlineNotByArrival() async {
        let pool = TaskThreadPool(.init(name: "tt-deadline"))
        defer { pool.stop() }
        let woke = Recorder<Int>()
        let tasks = [60, 20, 40].map { ms in
            Task(executorPreference: pool.executor) {
                try? await Task.sleep(for: .milliseconds(ms))
                woke.add(ms)
            }
        }
        for task in tasks { await task.value }
        #expect(woke.values == [20, 40, 60])
    }

    @Test(.enabled(if: TaskThreads.isCompiledIn, "the pool takes timed jobs only with the trait CustomGlobalExecutor"))
    func aCancelledSleepEndsAtOnce() async {
        let pool = TaskThreadPool(.init(name: "tt-cancel"))
        defer { pool.stop() }
        let sleeper = Task(executorPreference: pool.executor) { try await Task.sleep(for: .seconds(30)) }
        #expect(await eventually { pool.statistics.timedJobs == 1 }, "the sleep began")
        let start = PoolThreads.seconds()
        sleeper.cancel()
        let result = await sleeper.result
        #expect(PoolThreads.seconds() - start < 0.5)
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func manyConcurrentTasksAllRunOnThePool() async {
        let pool = TaskThreadPool(.init(name: "tt-many"))
        defer { pool.stop() }
        let (sum, names) = await PoolThreads.on(pool) {
            await withTaskGroup(of: (Int, String).self) { group in
                for i in 1...10_000 { group.addTask { (i, PoolThreads.currentName()) } }
                return await group.reduce(into: (0, Set<String>())) { $0.0 += $1.0; $0.1.insert($1.1) }
            }
        }
        #expect(sum == 10_000 * 10_001 / 2)
        #expect(names == ["tt-many"])
        #expect(pool.statistics.jobsRun >= 10_000)
    }

    actor Account {
        var balance = 0
        func deposit(_ amount: Int) -> Int { balance += amount; return balance }
    }

    @Test func actorHopsAndTheMainActorComeBackToThePool() async {
        let pool = TaskThreadPool(.init(name: "tt-hops"))
        defer { pool.stop() }
        let account = Account()
        let (total, mainWasElsewhere, backOnPool) = await PoolThreads.on(pool) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<1000 { group.addTask { _ = await account.deposit(1) } }
            }
            let elsewhere = await MainActor.run {
                MainActor.assertIsolated()
                return PoolThreads.currentName() != "tt-hops"
            }
            return (await account.balance, elsewhere, PoolThreads.currentName() == "tt-hops")
        }
        #expect(total == 1000)
        #expect(mainWasElsewhere)
        #expect(backOnPool)
    }
}
