import TaskThreads

/// heartd-sync's entry point, as heartd's (`HeartdMain`): Swift concurrency's jobs go to threads of its own, installed
/// before anything asynchronous runs, so that libdispatch's worker pool and its one-second monitor never start
/// (docs/ARCHITECTURE.md, "No periodic tick anywhere"); then ArgumentParser parses and runs the command.
@main
enum HeartdSyncMain {
    static func main() {
        TaskThreads.runMain(on: TaskThreadPool(.init(name: "heartd-task"))) {
            await HeartdSync.main()
            return 0
        }
    }
}
