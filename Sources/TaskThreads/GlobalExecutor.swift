@_spi(ExperimentalCustomExecutors) import _Concurrency
import Dispatch
import Glibc
import Synchronization

/// Installing a `TaskThreadPool` as Swift concurrency's global executor: where every task without an actor or an
/// executor preference runs, and where `Task.sleep` waits.
///
/// This is **experimental SPI of Swift 6.3** (`ExecutorFactory`, `_createExecutors`, `SchedulingExecutor`; the
/// proposals behind it, SE-0505 among them, were still in review). The C hooks `swift_task_enqueueGlobal_hook` and
/// its siblings are not enough there: `Task.sleep` goes through the default executor's Swift scheduling path
/// straight to libdispatch. Declaring `typealias DefaultExecutorFactory` in the main module is what the proposal
/// describes, but Swift 6.3.1 does not take it, so `_createExecutors` is called by hand, first thing in a
/// synchronous `main`. A toolchain that renames or drops the SPI fails to build; one that ignores it or changes
/// how it routes jobs fails `TaskThreadsGlobalTests` (the check program) and `DaemonIdleTests` (heartd wakes no
/// thread while idle).
public enum TaskThreads {
    /// Makes `pool` the global executor; the main actor keeps the platform's executor (libdispatch's main
    /// queue). Must run before anything asynchronous: jobs enqueued earlier stay with libdispatch.
    public static func installGlobalExecutor(_ pool: TaskThreadPool) {
        installed.withLock { $0 = pool }
        _createExecutors(factory: PoolExecutorFactory.self)
    }

    /// Whether the runtime reports `pool` as its default executor.
    public static func isGlobalExecutor(_ pool: TaskThreadPool) -> Bool {
        Task.defaultExecutor === pool.poolExecutor
    }

    /// A program's synchronous entry: installs `pool`, runs `body` as the first task and exits with the status it
    /// returns. The main thread meanwhile goes to libdispatch's main queue, as with an `async main` (whose main
    /// actor jobs then run on its overcommit threads, which its worker-pool monitor does not watch).
    public static func runMain(on pool: TaskThreadPool, _ body: @escaping @Sendable () async -> Int32) -> Never {
        installGlobalExecutor(pool)
        Task { exit(await body()) }
        dispatchMain()
    }
}

private let installed = Mutex<TaskThreadPool?>(nil)

/// Read once by `_createExecutors`.
private struct PoolExecutorFactory: ExecutorFactory {
    static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
    static var defaultExecutor: any TaskExecutor { installed.withLock { $0!.poolExecutor } }
}
