import Glibc

/// Threads of our own that run Swift concurrency's jobs: installed as the global executor
/// (`TaskThreads.installGlobalExecutor`), or preferred for some tasks (`Task(executorPreference: pool.executor)`).
///
/// Why not libdispatch's: on Linux the first worker of a non-overcommit root queue (the default global executor's,
/// `DispatchQueue.global()`'s) starts libdispatch's worker-pool monitor, a one-second timer on the manager thread
/// that is never cancelled; at one notification a second it cost as much CPU as a whole C subscriber. Here idle
/// threads park with no timeout, and only the earliest timed job has one (`PoolState`, with the rule for how many
/// threads run). Ready jobs run first in, first out; timed jobs when due, by deadline.
///
/// The executor itself is `PoolExecutor`, internal: a public type cannot conform to `SchedulingExecutor`, which
/// is SPI of Swift 6.3, and without that conformance `Task.sleep` would not reach the pool.
public final class TaskThreadPool: Sendable {
    public struct Configuration: Sendable {
        /// The threads' name as the kernel shows it (/proc/PID/task/TID/comm, `top -H`; at most 15 bytes).
        public var name: String
        /// Threads kept for good once started (they are started as work needs them).
        public var keptThreads: Int
        /// The most threads at once: jobs that block their threads make the pool start more, up to this.
        public var maximumThreads: Int
        /// A thread beyond the kept ones exits after this long without work.
        public var retireAfter: Duration
        /// A job that has run this long counts as blocking its thread (`PoolState`, the rule).
        public var blockedAfter: Duration

        /// `keptThreads`: max(2, online CPUs), libdispatch's width for the same work.
        public init(name: String, keptThreads: Int = max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN))),
                    maximumThreads: Int = 64, retireAfter: Duration = .seconds(60),
                    blockedAfter: Duration = .milliseconds(5)) {
            self.name = name
            self.keptThreads = max(1, keptThreads)
            self.maximumThreads = max(self.keptThreads, maximumThreads)
            self.retireAfter = retireAfter
            self.blockedAfter = blockedAfter
        }
    }

    /// Counts since the pool was made (tests, and a look at a running pool).
    public struct Statistics: Sendable, Equatable {
        public var jobsRun = 0
        public var timedJobs = 0
        public var threadsStarted = 0
        public var threadsExited = 0
        public var threads: Int { threadsStarted - threadsExited }
    }

    let poolExecutor: PoolExecutor

    public init(_ configuration: Configuration) {
        poolExecutor = PoolExecutor(configuration)
    }

    public var configuration: Configuration { poolExecutor.configuration }

    /// The executor, for `Task(executorPreference:)` and `withTaskExecutorPreference`.
    public var executor: any TaskExecutor { poolExecutor }

    public var statistics: Statistics { poolExecutor.statistics }

    /// Threads parked now (tests).
    public var parkedThreads: Int { poolExecutor.parkedThreads }

    /// Lets every thread exit once no job is left (tests: the daemon's pool lives as long as the process).
    public func stop() { poolExecutor.stop() }
}
