import Foundation
import HealthModel
import HeartQueries
import HeartStore
import Ingest
import LogFields
import Logging
import Synchronization
import Systemd

/// The daemon's store: the database, the series a crash left open finished (recovery), and the open-series journal.
/// It is *ready* once all three are done. Until then — started on a full disk, a read-only file system, a store it
/// may not write — capture runs all the same: the sink (`DaemonStoreSink`) throws why, so the store writer keeps what
/// arrives in memory (bounded by `store.memory_buffer_beats`), reads answer the same error, and `StoreOpenService`
/// tries again every few seconds. The first attempt is made before capture starts, so a healthy store is recovered
/// before any new beat arrives.
final class DaemonStore: Sendable {
    let database: HeartDatabase
    private let logger: Logger
    private let state = Mutex(State())

    private struct State {
        /// The sink once the store is ready.
        var sink: StoreSink?
        /// Why it is not ready, and since when (nil once ready).
        var error: StoreError?
        var since: Date?
        /// Attempts that failed in a row (the first is logged as critical, the others at debug).
        var failures = 0
        /// Called once when the store becomes ready (the daemon applies the active sessions then).
        var onReady: (@Sendable (HeartDatabase) -> Void)?
    }

    init(path: String, logger: Logger) {
        database = HeartDatabase.opening(path: path)
        self.logger = logger
    }

    /// The sink writing into the ready store; throws why the store is not ready.
    func sink() throws(StoreError) -> StoreSink {
        let (sink, error) = state.withLock { ($0.sink, $0.error) }
        if let sink { return sink }
        throw error ?? StoreError(.io, "the store is not open yet")
    }

    var isReady: Bool { state.withLock { $0.sink != nil } }

    /// Why the store is not ready and since when; nil when it is.
    var unavailable: (error: StoreError, since: Date)? {
        state.withLock { s in s.error.flatMap { error in s.since.map { (error, $0) } } }
    }

    /// Runs `body` once the store is ready (at once if it is).
    func whenReady(_ body: @escaping @Sendable (HeartDatabase) -> Void) {
        let ready = state.withLock { s -> Bool in
            if s.sink != nil { return true }
            s.onReady = body
            return false
        }
        if ready { body(database) }
    }

    /// Makes the store ready if it is not: opens the database, finishes what a crash left open, opens the journal.
    /// Returns whether it is ready. Calls are serialized (the state's lock is not held while SQLite works; only the
    /// daemon's start and `StoreOpenService` call it, one after the other).
    @discardableResult
    func prepare(now: Date = Date()) -> Bool {
        if isReady { return true }
        let path = database.path ?? ""
        do {
            try database.open()
            let recovery = try database.recoverOpenSeries(finishedAt: now)
            let checkpoints = try CheckpointWriter(database: database)
            logRecovery(recovery)
            let sink = StoreSink(database: database, checkpoints: checkpoints, logger: logger)
            let (onReady, outage) = state.withLock { s in
                defer { s.sink = sink; s.error = nil; s.since = nil; s.failures = 0; s.onReady = nil }
                return (s.onReady, s.since)
            }
            if let outage {
                logger.notice("the store is open and writable again", metadata: [
                    "path": "\(path)", "unavailableSeconds": "\(Int(now.timeIntervalSince(outage).rounded()))",
                    LogField.messageID.key: "\(MessageID.storeRecovered.hex)",
                ])
            }
            onReady?(database)
            return true
        } catch {
            let first = state.withLock { s -> Bool in
                s.error = error
                if s.since == nil { s.since = now }
                s.failures += 1
                return s.failures == 1
            }
            logger.log(level: first ? .critical : .debug,
                       "cannot open the store for writing; capturing into memory and retrying", metadata: [
                           "path": "\(path)", "error": "\(error)", LogField.messageID.key: "\(MessageID.storeError.hex)",
                       ])
            return false
        }
    }

    private func logRecovery(_ recovery: HeartDatabase.Recovery) {
        if recovery.discardedJournalBytes > 0 {
            logger.warning("the open-series journal ended in a damaged record; dropped it and used the snapshot before it", metadata: [
                "bytes": "\(recovery.discardedJournalBytes)", "path": "\(database.journalPath ?? "")",
            ])
        }
        if !recovery.samples.isEmpty {
            logger.notice("recovered series left open by an unclean stop", metadata: [
                LogField.messageID.key: "\(MessageID.recovery.hex)", "count": "\(recovery.samples.count)",
                "series": "\(recovery.samples.map(\.uuid.uuidString).joined(separator: ","))",
            ])
        }
    }

    /// What `status` shows of the store: its file, size, the writer's queue, and whether it can write.
    func report(sink: SinkStatus) -> StoreReport {
        var report = StoreReport(path: database.path, sizeBytes: Int(database.fileSize()), sink: sink)
        if let (error, since) = unavailable {
            report.state = .notOpen
            report.failingSince = since
            report.error = error.description
        } else if let since = sink.failingSince {
            report.state = .failing
            report.failingSince = since
            report.error = sink.lastError
        }
        return report
    }
}
