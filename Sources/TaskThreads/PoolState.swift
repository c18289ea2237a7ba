import Posix

/// Everything the pool's threads share, behind the pool's mutex, and the rule for threads.
///
/// **The rule.** A ready job no thread is on its way to calls a parked thread (the most recently parked kept thread
/// first, the timekeeper last). If none is parked and fewer than `kept` threads run, one is started. Otherwise every
/// thread is running a job, and another thread is started (one start at a time, up to `maximum`) once one of those
/// jobs has run `longJob` (5 ms): it is probably blocked (a slow SQLite call inside a task), while a shorter job
/// frees its thread sooner than a new one would start — so a burst of short jobs starts no thread. The watcher, a
/// thread of the pool that runs no jobs, waits for that moment (`watch`); it waits with a timeout only while a
/// job is left behind busy threads. A job thus waits behind blocked ones 5 ms and a thread's start at most.
/// Threads up to `kept` are kept for good and park with no timeout; a thread beyond them exits after `retireAfter`
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

    /// What the caller does once the mutex is released: unpark these threads, start this one (and the watcher).
    struct Calls {
        var unpark: [Worker] = []
        var start: Worker?
        var startWatcher: Worker?
    }

    enum Arrival { case started, afterJob, afterPark }

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
    /// The watcher (started the first time a job is left behind busy threads), whether it is on its way to look,
    /// and the time it waits for.
    var watcher: Worker?
    var watcherAwake = false
    var watcherDeadline: UInt64?
    var stopping = false
    var statistics = TaskThreadPool.Statistics()

    init(limits: Limits) { self.limits = limits }

    mutating func append(_ job: UnownedJob) -> Calls {
        ready.append(job)
        return balance()
    }

    /// `fromPoolThread`: scheduled by a job running on one of the pool's threads. `Task.sleep` schedules its job
    /// as its task suspends, so that thread looks for work right after and, finding none, watches the clock itself:
    /// no other thread is called for the watch.
    mutating func schedule(_ job: UnownedJob, deadline: UInt64, now: UInt64, fromPoolThread: Bool) -> Calls {
        statistics.timedJobs += 1
        guard deadline > now else { return append(job) }
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
        let more = balance()
        calls.unpark += more.unpark
        calls.start = more.start
        calls.startWatcher = more.startWatcher
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
            return .run(job, balance())
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

    /// Calls threads for the work no thread is on its way to (the rule above).
    mutating func balance() -> Calls {
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
        if ready.count > coming, starting == 0, threads < limits.maximum, !stopping {
            if threads < limits.kept || aJobRunsLong(now: MonotonicClock.nanoseconds()) {
                calls.start = startWorker()
            } else {
                callWatcher(&calls)
            }
        }
        return calls
    }

    /// Counts a new thread in; the caller starts it.
    mutating func startWorker() -> Worker {
        let worker = Worker(kept: keptThreads < limits.kept)
        threads += 1
        starting += 1
        coming += 1
        if worker.kept { keptThreads += 1 }
        statistics.threadsStarted += 1
        return worker
    }

    /// Whether a running job has run for `longJob`: its thread is probably blocked.
    func aJobRunsLong(now: UInt64) -> Bool {
        running.contains { now &- $0.jobStarted >= limits.longJob }
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
        if let watcher, !watcherAwake {
            watcherAwake = true
            calls.unpark.append(watcher)
        }
        return calls
    }
}
