import Posix

/// The watcher: the thread that starts another when jobs wait behind busy threads and one of them has run
/// `longJob` (the rule, in `PoolState`). It runs no jobs, parks with no timeout while no job waits, and with one,
/// for the moment the oldest running job will have run `longJob`, while one does.
extension PoolState {
    enum WatchStep {
        case start(Worker)
        case park(until: UInt64?)
        case exit
    }

    /// Jobs wait behind busy threads: the watcher is started, or called, unless it already waits for that moment
    /// or an earlier one.
    mutating func callWatcher(_ calls: inout Calls) {
        guard let watcher else {
            let watcher = Worker(kept: true)
            self.watcher = watcher
            watcherAwake = true
            calls.startWatcher = watcher
            return
        }
        guard !watcherAwake else { return }
        if let waiting = watcherDeadline, waiting <= oldestJobRunsLongAt { return }
        watcherAwake = true
        calls.unpark.append(watcher)
    }

    /// When the oldest running job will have run `longJob`.
    var oldestJobRunsLongAt: UInt64 {
        (running.lazy.map(\.jobStarted).min() ?? MonotonicClock.nanoseconds()) &+ limits.longJob
    }

    /// The watcher looks: a thread to start, or how long to park.
    mutating func watch(now: UInt64) -> WatchStep {
        watcherAwake = false
        watcherDeadline = nil
        if stopping { return .exit }
        guard ready.count > coming, starting == 0, threads < limits.maximum else { return .park(until: nil) }
        if aJobRunsLong(now: now) { return .start(startWorker()) }
        let deadline = oldestJobRunsLongAt
        watcherDeadline = deadline
        return .park(until: deadline)
    }
}
