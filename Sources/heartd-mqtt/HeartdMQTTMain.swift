import Foundation
import TaskThreads

/// heartd-mqtt's entry point, as heartd's and heartd-sync's: Swift concurrency's jobs on threads of its own, installed
/// before anything asynchronous runs (docs/ARCHITECTURE.md, "No periodic tick anywhere").
@main
enum HeartdMQTTMain {
    static func main() {
        TaskThreads.runDaemonMain(program: "heartd-mqtt", poolName: "heartd-task",
                                  environment: ProcessInfo.processInfo.environment) {
            await HeartdMQTT.main()
            return 0
        }
    }
}
