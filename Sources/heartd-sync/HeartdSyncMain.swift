import Foundation
import TaskThreads

/// heartd-sync's entry point, as heartd's (`HeartdMain`): Swift concurrency's jobs go to threads of its own, installed
/// before anything asynchronous runs, so that libdispatch's worker pool and its one-second monitor never start
/// (docs/ARCHITECTURE.md, "No periodic tick anywhere"); then ArgumentParser parses and runs the command.
/// `HEARTD_EXECUTOR=platform` keeps the platform's executor, as for heartd.
@main
enum HeartdSyncMain {
    static func main() {
        TaskThreads.runDaemonMain(program: "heartd-sync", poolName: "heartd-task",
                                  environment: ProcessInfo.processInfo.environment) {
            await HeartdSync.main()
            return 0
        }
    }
}
