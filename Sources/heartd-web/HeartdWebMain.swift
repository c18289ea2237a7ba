import Foundation
import TaskThreads

/// heartd-web's entry point, as heartd-sync's: Swift concurrency's jobs on threads of its own (docs/ARCHITECTURE.md,
/// "No periodic tick anywhere"), then ArgumentParser parses and runs the command.
@main
enum HeartdWebMain {
    static func main() {
        TaskThreads.runDaemonMain(program: "heartd-web", poolName: "heartd-task",
                                  environment: ProcessInfo.processInfo.environment) {
            await HeartdWeb.main()
            return 0
        }
    }
}
