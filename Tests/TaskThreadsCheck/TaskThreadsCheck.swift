import Foundation
import Glibc
import TaskThreads

/// Installs a `TaskThreadPool` as the global executor, as heartd does, and checks what the runtime sends it; prints
/// one line per check (`ok …` / `FAIL …`) and exits 1 if any failed. Run by `TaskThreadsGlobalTests`: installing
/// only takes in a fresh process. This is where a toolchain that changes the experimental executor SPI shows. With
/// `HEARTD_EXECUTOR=platform`, or in a build without the SPI, it checks that nothing is installed instead and that
/// tasks and sleeps work on the platform's executor.
@main
enum TaskThreadsCheck {
    static let pool = TaskThreadPool(.init(name: "check-task", keptThreads: 2))

    static func main() {
        guard let choice = try? ExecutorChoice(environment: ProcessInfo.processInfo.environment) else {
            print("FAIL HEARTD_EXECUTOR is not a choice")
            exit(2)
        }
        let installs = choice == .taskThreads && TaskThreads.isCompiledIn
        print("executor: \(installs ? "pool" : "platform")")
        TaskThreads.runMain(on: pool, choice: choice) {
            let checks = Checks(pool: pool)
            return await (installs ? checks.run() : checks.runOnPlatform()) ? 0 : 1
        }
    }
}

/// The kernel's name of the calling thread.
func threadName() -> String {
    let fd = open("/proc/thread-self/comm", O_RDONLY)
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 32)
    let n = read(fd, &bytes, bytes.count)
    return String(decoding: bytes.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: "\n")
}

extension String {
    func trimmingCharacters(in character: Character) -> String { String(filter { $0 != character }) }
}

/// The names of the process's threads.
func threadNames() -> [String] {
    guard let dir = opendir("/proc/self/task") else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard tid.first?.isNumber == true else { continue }
        let fd = open("/proc/self/task/\(tid)/comm", O_RDONLY)
        guard fd >= 0 else { continue }
        var bytes = [UInt8](repeating: 0, count: 32)
        let n = read(fd, &bytes, bytes.count)
        close(fd)
        names.append(String(decoding: bytes.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: "\n"))
    }
    return names
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

actor Counter {
    var value = 0
    func increment() -> (Int, pthread_t) {
        value += 1
        return (value, pthread_self())
    }
}
