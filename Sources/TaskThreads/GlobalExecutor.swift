#if CustomGlobalExecutor && compiler(>=6.3)
@_spi(ExperimentalCustomExecutors) import _Concurrency
#endif
import Dispatch
import Glibc
import Synchronization

/// Installing a `TaskThreadPool` as Swift concurrency's global executor: where every task without an actor or an
/// executor preference runs, and where `Task.sleep` waits.
///
/// This uses **experimental SPI of Swift 6.3** (`ExecutorFactory`, `_createExecutors`; the proposals behind it,
/// SE-0505 among them, were still in review). The C hooks `swift_task_enqueueGlobal_hook` and its siblings are not
/// enough there: `Task.sleep` goes through the default executor's Swift scheduling path straight to libdispatch.
/// Declaring `typealias DefaultExecutorFactory` in the main module is what the proposal describes, but Swift 6.3.1
/// does not take it, so `_createExecutors` is called by hand, first thing in a synchronous `main`.
///
/// The build does not depend on it: the SPI is compiled only with the package trait `CustomGlobalExecutor` (on by
/// default) on Swift 6.3 or later; without it, and at run time with `HEARTD_EXECUTOR=platform`, tasks run on the
/// platform's executor (libdispatch's worker pool, whose monitor then wakes a thread every second). A toolchain
/// that changes how the SPI routes jobs fails `TaskThreadsGlobalTests` (the check program) and `DaemonIdleTests`.
public enum TaskThreads {
    /// Whether this build has the SPI (the trait, and a compiler that knows it).
    public static var isCompiledIn: Bool {
        #if CustomGlobalExecutor && compiler(>=6.3)
        true
        #else
        false
        #endif
    }

    /// Makes `pool` the global executor; the main actor keeps the platform's executor (libdispatch's main
    /// queue). Must run before anything asynchronous: jobs enqueued earlier stay with libdispatch. False, with
    /// nothing changed, in a build without the SPI.
    @discardableResult
    public static func installGlobalExecutor(_ pool: TaskThreadPool) -> Bool {
        #if CustomGlobalExecutor && compiler(>=6.3)
        installed.withLock { $0 = pool }
        _createExecutors(factory: PoolExecutorFactory.self)
        return true
        #else
        return false
        #endif
    }

    /// Whether the runtime reports `pool` as its default executor.
    public static func isGlobalExecutor(_ pool: TaskThreadPool) -> Bool {
        #if CustomGlobalExecutor && compiler(>=6.3)
        Task.defaultExecutor === pool.poolExecutor
        #else
        false
        #endif
    }

    /// A program's synchronous entry: installs a pool made by `pool` when `choice` asks for one and the build has
    /// the SPI, runs `body` as the first task and exits with the status it returns. The main thread meanwhile goes
    /// to libdispatch's main queue, as with an `async main`. Returns (through `body`) nothing: it never returns.
    public static func runMain(on pool: @autoclosure () -> TaskThreadPool, choice: ExecutorChoice = .taskThreads,
                               _ body: @escaping @Sendable () async -> Int32) -> Never {
        if choice == .taskThreads, isCompiledIn { installGlobalExecutor(pool()) }
        Task { exit(await body()) }
        dispatchMain()
    }
}

#if CustomGlobalExecutor && compiler(>=6.3)
private let installed = Mutex<TaskThreadPool?>(nil)

/// Read once by `_createExecutors`.
private struct PoolExecutorFactory: ExecutorFactory {
    static var mainExecutor: any MainExecutor { PlatformExecutorFactory.mainExecutor }
    static var defaultExecutor: any TaskExecutor { installed.withLock { $0!.poolExecutor } }
}
#endif
