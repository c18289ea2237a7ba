import Foundation
import Posix
import Synchronization
import TaskThreads

/// What the tests read about threads: names and scheduling counts from /proc, a gate jobs block on.
enum PoolThreads {
    /// The kernel's name of the calling thread.
    static func currentName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Thread id → times it has run (the third field of schedstat: its scheduling slices), for the threads named
    /// `name`.
    static func slices(named name: String) -> [String: Int] {
        var result: [String: Int] = [:]
        let tasks = "/proc/self/task"
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let comm = try? String(contentsOfFile: "\(tasks)/\(tid)/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .whitespacesAndNewlines) == name,
                  let stat = try? String(contentsOfFile: "\(tasks)/\(tid)/schedstat", encoding: .utf8),
                  let count = stat.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
            else { continue }
            result[tid] = count
        }
        return result
    }

    static func seconds() -> Double { MonotonicClock.now() }

    /// Runs `body` as a task on `pool` and waits for it.
    static func on<T: Sendable>(_ pool: TaskThreadPool, _ body: @escaping @Sendable () async -> T) async -> T {
        await Task(executorPreference: pool.executor) { await body() }.value
    }
}

/// A gate jobs block on, as a slow SQLite call blocks its thread: `wait` blocks the calling thread itself (not a
/// suspension) until `open`.
final class ThreadGate: Sendable {
    private let parkers = Mutex<[ThreadParker]?>([])

    func wait() {
        let parker = ThreadParker()
        let open = parkers.withLock { list -> Bool in
            guard list != nil else { return true }
            list!.append(parker)
            return false
        }
        if !open { parker.park() }
    }

    func open() {
        for parker in parkers.withLock({ list -> [ThreadParker] in
            defer { list = nil }
            return list ?? []
        }) { parker.unpark() }
    }
}

/// Waits (polling) until `condition` holds or `timeout` seconds pass; returns whether it held.
func eventually(timeout: Double = 5, _ condition: () -> Bool) async -> Bool {
    let end = PoolThreads.seconds() + timeout
    while PoolThreads.seconds() < end {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Values added from any thread, in the order they were added.
final class Recorder<Value: Sendable>: Sendable {
    private let list = Mutex<[Value]>([])
    func add(_ value: Value) { list.withLock { $0.append(value) } }
    var values: [Value] { list.withLock { $0 } }
}

/// A flag set from any thread.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
