import Logging
import ServiceLifecycle

/// Tries to make a store that was not ready at start ready (`DaemonStore.prepare`) every `interval`, until it is or
/// the daemon stops; then ends (its entry in the service group ignores a successful end).
struct StoreOpenService: Service {
    let store: DaemonStore
    /// Between attempts: opening, recovering and journaling cost a few file system calls, nothing while it fails fast.
    var interval: Duration = .seconds(5)

    func run() async throws {
        while !store.isReady {
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return  // the daemon stops
            }
            if Task.isCancelled { return }
            store.prepare()
        }
    }
}
