#if CustomGlobalExecutor && compiler(>=6.3)
@_spi(ExperimentalScheduling) import _Concurrency
#endif
import Glibc
import Posix
import Synchronization

/// `TaskThreadPool`'s executor: its threads, and the enqueues the runtime calls (`PoolState` decides, under one
/// mutex, which thread runs what).
final class PoolExecutor: TaskExecutor, Sendable {
    let configuration: TaskThreadPool.Configuration
    private let state: Mutex<PoolState>

    init(_ configuration: TaskThreadPool.Configuration) {
        self.configuration = configuration
        state = Mutex(PoolState(limits: .init(
            kept: configuration.keptThreads, maximum: configuration.maximumThreads,
            retireAfter: Self.nanoseconds(configuration.retireAfter), longJob: Self.nanoseconds(configuration.blockedAfter))))
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds / 1_000_000_000))
    }

    var statistics: TaskThreadPool.Statistics { state.withLock { $0.statistics } }

    var parkedThreads: Int { state.withLock { $0.idle.count } }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let calls = state.withLock { $0.append(job) }
        make(calls)
    }

    private func schedule(_ job: UnownedJob, deadline: UInt64) {
        let now = MonotonicClock.nanoseconds()
        let own = onOwnThread
        let calls = state.withLock { $0.schedule(job, deadline: deadline, now: now, fromPoolThread: own) }
        make(calls)
    }

    /// Whether the calling thread is one of this pool's (a thread-specific value each pool thread sets).
    private var onOwnThread: Bool { pthread_getspecific(threadPoolKey) == Unmanaged.passUnretained(self).toOpaque() }

    func stop() {
        make(state.withLock { $0.stop() })
    }

    private func make(_ calls: PoolState.Calls) {
        for worker in calls.unpark { worker.parker.unpark() }
        if let worker = calls.start { start(worker) }
        if let watcher = calls.startWatcher { start(watcher, watching: true) }
    }

    /// The runtime's generic executor reference (no actor): the job runs as it would on the default global
    /// executor, which hands libdispatch's workers `swift_job_run(job, generic)`. Not
    /// `runSynchronously(on: asUnownedTaskExecutor())`: that marks the thread as running a task executor, and the
    /// runtime then never lets a task take over an idle actor on the same thread — every hop into an actor becomes
    /// one more job and thread wake-up. `UnownedSerialExecutor` is frozen (ABI): two words, (0, 0) for generic;
    /// `unsafeBitCast` traps if its size ever changes, and `TaskThreadsGlobalTests` checks the hop stays inline.
    static let genericExecutor = unsafeBitCast((0, 0), to: UnownedSerialExecutor.self)

    private func start(_ worker: Worker, watching: Bool = false) {
        let context = Unmanaged.passRetained(ThreadStart(pool: self, worker: worker, watching: watching)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let start = Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue()
            if start.watching { start.pool.watch(as: start.worker) } else { start.pool.work(as: start.worker) }
            return nil
        }, context)
        pthread_attr_destroy(&attributes)
        guard result != 0 else { return }
        Unmanaged<ThreadStart>.fromOpaque(context).release()
        let threadsLeft = state.withLock { s in
            if watching { s.watcher = nil; s.watcherAwake = false } else { s.startFailed(worker) }
            return s.threads
        }
        // With no thread at all nothing would ever run again; with some, the work waits for them.
        if threadsLeft == 0 { fatalError("TaskThreadPool: cannot start a thread: \(errnoText(result))") }
    }

    /// A thread's life: take a job, run it, look again; park when there is none.
    private func work(as worker: Worker) {
        CurrentThread.setName(configuration.name)
        pthread_setspecific(threadPoolKey, Unmanaged.passUnretained(self).toOpaque())
        var arrival = PoolState.Arrival.started
        var idleSince: UInt64?
        while true {
            switch state.withLock({ $0.next(for: worker, arrival: arrival, idleSince: idleSince) }) {
            case .run(let job, let calls):
                make(calls)
                job.runSynchronously(on: Self.genericExecutor)
                arrival = .afterJob
                idleSince = nil
            case .park(let deadline, let now):
                if idleSince == nil { idleSince = now }
                worker.parker.park(until: deadline)
                arrival = .afterPark
            case .exit:
                return
            }
        }
    }

    /// The watcher's life (`PoolState.watch`): start a thread when jobs wait behind one that has run too long.
    private func watch(as watcher: Worker) {
        CurrentThread.setName(configuration.name)
        while true {
            switch state.withLock({ $0.watch(now: MonotonicClock.nanoseconds()) }) {
            case .start(let worker): start(worker)
            case .park(let deadline): watcher.parker.park(until: deadline)
            case .exit: return
            }
        }
    }
}

/// The key of the thread-specific value that says which pool a thread belongs to.
private let threadPoolKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
}()

private final class ThreadStart: Sendable {
    let pool: PoolExecutor
    let worker: Worker
    let watching: Bool

    init(pool: PoolExecutor, worker: Worker, watching: Bool) {
        self.pool = pool
        self.worker = worker
        self.watching = watching
    }
}

#if CustomGlobalExecutor && compiler(>=6.3)
/// Timed jobs (`Task.sleep`) on the pool's own timer heap: experimental SPI, compiled with the trait only. Without
/// it the pool is a plain `TaskExecutor` and the runtime keeps sleeps with the platform executor.
extension PoolExecutor: SchedulingExecutor {
    /// The tolerance is not used: a timed job runs as soon as it is due.
    func enqueue<C: Clock>(_ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C) {
        schedule(UnownedJob(job), deadline: ClockDeadline.monotonic(at: instant, clock: clock))
    }

    func enqueue<C: Clock>(_ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C) {
        schedule(UnownedJob(job), deadline: ClockDeadline.monotonic(after: delay))
    }
}
#endif
