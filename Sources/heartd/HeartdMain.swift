import Foundation
import TaskThreads

/// heartd's entry point. Swift concurrency's jobs go to threads of heartd's own (`heartd-task`), installed before
/// anything asynchronous runs; then ArgumentParser parses and runs the command exactly as `@main` on `Heartd` did
/// (exit codes, `--help`, usage errors: it exits by itself on an error, and 0 when the command returns). Why:
/// libdispatch's worker pool, which the default executor uses on Linux, brings a monitor that wakes a thread every
/// second for the life of the process (docs/ARCHITECTURE.md, "Threads"). `HEARTD_EXECUTOR=platform`, or a build
/// without the trait `CustomGlobalExecutor`, keeps the platform's executor (`ExecutorChoice`).
@main
enum HeartdMain {
    static func main() {
        TaskThreads.runDaemonMain(program: "heartd", poolName: "heartd-task",
                                  environment: ProcessInfo.processInfo.environment) {
            await Heartd.main()
            return 0
        }
    }
}
