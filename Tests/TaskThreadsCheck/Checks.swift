import Glibc
import TaskThreads

/// The checks, in one process whose global executor is `pool`.
struct Checks {
    let pool: TaskThreadPool
    let name = "check-task"

    func run() async -> Bool {
        var failures = 0
        func check(_ ok: Bool, _ what: String) {
            print(ok ? "ok \(what)" : "FAIL \(what)")
            if !ok { failures += 1 }
        }
        check(TaskThreads.isGlobalExecutor(pool), "the runtime reports the pool as its default executor")
        check(threadName() == name, "the first task runs on a pool thread (\(threadName()))")

        let detached = await Task.detached { threadName() }.value
        check(detached == name, "a detached task runs on a pool thread (\(detached))")

        let timedBefore = pool.statistics.timedJobs
        let start = monotonicSeconds()
        try? await Task.sleep(for: .milliseconds(50))
        let slept = monotonicSeconds() - start
        check(slept >= 0.050 && slept < 0.5, "Task.sleep(for: 50 ms) slept \(slept) s")
        try? await Task.sleep(until: .now + .milliseconds(5), clock: .suspending)
        check(pool.statistics.timedJobs == timedBefore + 2, "both sleeps were timed jobs of the pool")
        check(threadName() == name, "a task resumes from a sleep on a pool thread")

        let sleeper = Task { try await Task.sleep(for: .seconds(30)) }
        try? await Task.sleep(for: .milliseconds(20))
        let cancelAt = monotonicSeconds()
        sleeper.cancel()
        let result = await sleeper.result
        let cancelled: Bool = if case .failure(let error) = result { error is CancellationError } else { false }
        check(cancelled && monotonicSeconds() - cancelAt < 0.5, "a cancelled 30-s sleep ends at once")

        let names = await withTaskGroup(of: String.self) { group in
            for _ in 0..<200 { group.addTask { threadName() } }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        check(names == [name], "200 child tasks ran on pool threads (\(names.sorted()))")

        // An idle actor is entered on the caller's thread, as with libdispatch's global executor: the job runs on
        // the generic executor, not as a task executor (which would make each entry a job of its own).
        let counter = Counter()
        let jobsBefore = pool.statistics.jobsRun
        var inline = 0
        for _ in 0..<100 {
            let same = await Task.detached {
                let caller = pthread_self()
                return pthread_equal(caller, await counter.increment().1) != 0
            }.value
            if same { inline += 1 }
        }
        let jobs = pool.statistics.jobsRun - jobsBefore
        check(inline >= 90, "a fresh task enters an idle actor on its own thread (\(inline) of 100)")
        check(jobs <= 250, "100 tasks with one actor hop each took \(jobs) jobs (about 2 each, not 3)")

        let onMain = await MainActor.run { () -> Bool in
            MainActor.assertIsolated()
            return threadName() != name
        }
        check(onMain, "MainActor.run runs on the main queue, not on a pool thread")
        check(threadName() == name, "back from the main actor on a pool thread")

        let workers = threadNames().filter { $0.hasSuffix("-qos") }
        check(workers.isEmpty, "no libdispatch worker of a non-overcommit queue started (\(workers))")
        return failures == 0
    }

    /// Nothing installed (`HEARTD_EXECUTOR=platform`, or a build without the SPI): tasks, sleeps and child tasks
    /// run on the platform's executor, and the pool gets no job.
    func runOnPlatform() async -> Bool {
        var failures = 0
        func check(_ ok: Bool, _ what: String) {
            print(ok ? "ok \(what)" : "FAIL \(what)")
            if !ok { failures += 1 }
        }
        check(!TaskThreads.isGlobalExecutor(pool), "the pool is not the default executor")
        check(threadName() != name, "the first task runs on a platform thread (\(threadName()))")
        let start = monotonicSeconds()
        try? await Task.sleep(for: .milliseconds(50))
        let slept = monotonicSeconds() - start
        check(slept >= 0.050 && slept < 0.5, "Task.sleep(for: 50 ms) slept \(slept) s")
        let names = await withTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { threadName() } }
            return await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        check(!names.contains(name), "50 child tasks ran on platform threads (\(names.sorted()))")
        check(pool.statistics.jobsRun == 0, "the pool ran no job (\(pool.statistics.jobsRun))")
        return failures == 0
    }
}
