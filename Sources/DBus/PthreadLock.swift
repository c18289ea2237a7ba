import Foundation

/// A tiny lock for state touched from both the connection queue and arbitrary tasks.
final class PthreadLock: @unchecked Sendable {  // NSLock is thread-safe; wrapper only narrows the API
    private let lock = NSLock()
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}
