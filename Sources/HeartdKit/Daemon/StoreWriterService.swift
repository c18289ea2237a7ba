import LogFields
import Logging
import Ingest
import ServiceLifecycle
import Systemd

/// Runs the store writer (`BackgroundSink`'s `heartd-store` thread) for the daemon's life. It shuts down after
/// capture (the service group stops services in reverse order), so it writes what finishing the open series
/// handed over — waiting up to `drainSeconds` for a slow or full disk — before its thread ends.
struct StoreWriterService: Service {
    let store: BackgroundSink
    let logger: Logger
    /// How long shutdown waits for the writer (systemd's TimeoutStopSec is longer).
    static let drainSeconds = 15.0

    func run() async throws {
        store.start()
        defer { store.stop() }
        try? await gracefulShutdown()
        // In a task of its own: when the group is cancelled (capture failed) this task's sleeps would not wait.
        let store = self.store
        if !(await Task { await store.drain(timeout: Self.drainSeconds) }.value) {
            logger.error("store still busy at shutdown after \(Int(Self.drainSeconds)) s", metadata: [
                LogField.messageID.key: "\(MessageID.storeError.hex)"])
        }
        let queued = store.status.queuedBeats
        if queued > 0 {
            logger.error("store unavailable at shutdown: finished series still in memory are lost",
                         metadata: ["beats": "\(queued)", LogField.messageID.key: "\(MessageID.storeError.hex)"])
        }
    }
}
