import Posix

/// Everything the pool's threads share, behind the pool's mutex, and the rule for threads.
///
/// **The rule.** A ready job no thread is on its way to calls a parked thread (the most recently parked kept thread
/// first, the timekeeper last). If none is parked, a new thread is started — one start at a time, up to `maximum`
/// — when the job comes from outside the pool (a D-Bus reply resumed on libdbus's queue, the main queue), or while
/// a thread started for such a job finds more waiting, or when a running job has run for `longJob` (5 ms): it is
/// probably blocked (a slow SQLite call inside a task). A job one of the pool's own jobs enqueues (a task resuming
/// another, a child task) otherwise waits: the enqueuing thread is about to finish and takes it, which is what
/// async code does all the time, and a thread started for it would only retire a minute later. So a blocked job
/// delays others by a thread's start, or until the next enqueue finds it has run 5 ms. Threads up to `kept` are
/// started as needed, kept for good and park with no timeout; a thread beyond them exits after `retireAfter`
/// without work. One parked thread, the timekeeper, waits with a timeout: for the earliest timed job.
/// When it leaves (its job is due, or it is called for a ready job), another parked thread takes the watch, or
/// else the next thread to park; no thread is started only to watch the clock, so while every thread runs a job a
/// due timed job waits for the first of them (as with libdispatch, whose due timers wait for a worker too).
/// Nothing else has a timeout, so an idle pool wakes no thread at all.
struct PoolState {
    struct Limits {
        var kept: Int
        var maximum: Int
        var retireAfter: UInt64  // nanoseconds
        var longJob: UInt64
    }

    /// What the caller does once the mutex is released: unpark these threads, start this one.
    struct Calls {
        var unpark: [Worker] = []
        var start: Worker?
    }

    enum Arrival { case started, afterJob, afterPark }

    /// Who enqueued a job: a thread outside the pool, or a job running on one of its threads.
    enum Source { case outside, poolThread }

    enum Step {
        case run(UnownedJob, Calls)
        case park(until: UInt64?, now: UInt64)
        case exit
    }

    let limits: Limits
    var ready = JobQueue()
    var timed = TimedJobs()
    /// Parked threads, the most recently parked last.
    var idle: [Worker] = []
    /// The parked thread waiting for `timed.earliest`, and the deadline it waits for.
    var timekeeper: Worker?
    var timekeeperDeadline: UInt64 = .max
    var threads = 0
    var keptThreads = 0
    var starting = 0
    /// Threads unparked or started that have not looked for work yet: each will take a ready job.
    var coming = 0
    /// Threads running a job (`Worker.jobStarted` says since when).
    var running: [Worker] = []
    /// The thread starting was started for a job from outside the pool: when it arrives and finds more jobs
    /// waiting, it may start the next one freely too (a burst from outside gets threads one after the other).
    var startedForOutside = false
    var stopping = false
    var statistics = TaskThreadPool.Statistics()

    init(limits: Limits) { self.limits = limits }

    mutating func append(_ job: UnownedJob, from source: Source) -> Calls {
        ready.append(job)
        return balance(startFreely: source == .outside)
    }

    /// `fromPoolThread`: scheduled by a job running on one of the pool's threads. `Task.sleep` schedules its job
    /// as its task suspends, so that thread looks for work right after and, finding none, watches the clock itself:
    /// no other thread is called for the watch.
    mutating func schedule(_ job: UnownedJob, deadline: UInt64, now: UInt64, fromPoolThread: Bool) -> Calls {
        statistics.timedJobs += 1
        guard deadline > now else { return append(job, from: fromPoolThread ? .poolThread : .outside) }
        timed.insert(job, deadline: deadline)
        if fromPoolThread && timekeeper == nil { return Calls() }
        var calls = Calls()
        // Earlier than what the timekeeper waits for: it comes back and waits again, for this one.
        if let keeper = timekeeper, deadline < timekeeperDeadline {
            idle.removeAll { $0 === keeper }
            timekeeper = nil
            coming += 1
            calls.unpark.append(keeper)
        }
        let more = balance(startFreely: false)
        calls.unpark += more.unpark
        calls.start = more.start
        return calls
    }

    /// A thread looks for work: after starting, after a job, or after parking (unparked, or its own timeout).
    mutating func next(for worker: Worker, arrival: Arrival, idleSince: UInt64?) -> Step {
        switch arrival {
        case .started:
            starting -= 1
            coming -= 1
        case .afterJob:
            running.removeAll { $0 === worker }
        case .afterPark:
            if let index = idle.firstIndex(where: { $0 === worker }) {
                // Its own timeout (or a spare unpark): nobody called it.
                idle.remove(at: index)
                if timekeeper === worker { timekeeper = nil }
            } else {
                coming -= 1
            }
        }
        let now = MonotonicClock.nanoseconds()
        while let job = timed.popDue(now: now) { ready.append(job) }
        if let job = ready.popFirst() {
            statistics.jobsRun += 1
            worker.jobStarted = now
            running.append(worker)
            return .run(job, balance(startFreely: arrival == .started && startedForOutside))
        }
        if (stopping && timed.isEmpty) || (!worker.kept && retires(idleSince: idleSince, now: now)) {
            threads -= 1
            statistics.threadsExited += 1
            return .exit
        }
        idle.append(worker)
        if timekeeper == nil, let earliest = timed.earliest {
            timekeeper = worker
            timekeeperDeadline = earliest
            return .park(until: earliest, now: now)
        }
        return .park(until: worker.kept ? nil : (idleSince ?? now) + limits.retireAfter, now: now)
    }

    /// A thread beyond the kept ones retires once it has had no work for `retireAfter`, unless the timed jobs need
    /// it to watch the clock.
    private func retires(idleSince: UInt64?, now: UInt64) -> Bool {
        guard let since = idleSince, now - since >= limits.retireAfter else { return false }
        return timed.isEmpty || timekeeper != nil
    }

    /// Calls threads for the work no thread is on its way to (the rule above). `startFreely`: a new thread may be
    /// started without a long-running job as evidence.
    mutating func balance(startFreely: Bool) -> Calls {
        var calls = Calls()
        while ready.count > coming, let worker = takeIdle() {
            calls.unpark.append(worker)
            coming += 1
        }
        // Timed jobs and nobody parked watching the clock, nor a thread on its way that will be left without a job:
        // a parked thread takes the watch. If none is parked, the next thread to park takes it (no thread is
        // started for it: while every thread runs a job, a due timed job waits for the first to finish).
        if !timed.isEmpty, timekeeper == nil, coming <= ready.count, let worker = takeIdle() {
            calls.unpark.append(worker)
            coming += 1
        }
        if ready.count > coming, starting == 0, threads < limits.maximum, !stopping,
           startFreely || threads < limits.kept || aJobRunsLong() {
            let worker = Worker(kept: keptThreads < limits.kept)
            threads += 1
            starting += 1
            coming += 1
            if worker.kept { keptThreads += 1 }
            statistics.threadsStarted += 1
            startedForOutside = startFreely
            calls.start = worker
        }
        return calls
    }

    /// Whether a running job has run for `longJob`: its thread is probably blocked.
    private func aJobRunsLong() -> Bool {
        let now = MonotonicClock.nanoseconds()
        return running.contains { now &- $0.jobStarted >= limits.longJob }
    }

    /// The parked thread to call: the most recently parked kept one (warm, and the others may retire), then any
    /// but the timekeeper, the timekeeper last (the timed jobs then need another watcher).
    private mutating func takeIdle() -> Worker? {
        guard !idle.isEmpty else { return nil }
        let index = idle.lastIndex { $0.kept && $0 !== timekeeper } ?? idle.lastIndex { $0 !== timekeeper }
            ?? idle.count - 1
        let worker = idle.remove(at: index)
        if worker === timekeeper { timekeeper = nil }
        return worker
    }

    /// A thread could not be started: it will not come.
    mutating func startFailed(_ worker: Worker) {
        threads -= 1
        starting -= 1
        coming -= 1
        if worker.kept { keptThreads -= 1 }
        statistics.threadsStarted -= 1
    }

    /// Every thread exits once no job is left (tests; the daemon's pool lives as long as the process).
    mutating func stop() -> Calls {
        stopping = true
        var calls = Calls()
        while let worker = takeIdle() {
            calls.unpark.append(worker)
            coming += 1
        }
        return calls
    }
}
