import Foundation
import HeartStore
import Logging
// The settings, the URL and the error are Sync's vocabulary, kept in their own target so that HeartdConfig can
// validate `[sync]` without linking NIO: every client of Sync gets them with it.
@_exported import SyncConfig
import Systemd
import Timers

/// `heartd-sync`: reads the store's anchored changes read-only and delivers them to the central database in
/// batches, forever (or once, for cron), retrying failures with capped exponential backoff.
///
/// Exactly once: each batch and the gateway's delivered anchor commit in one PostgreSQL transaction, and
/// every round starts from the anchor PostgreSQL holds. A crash before the commit redelivers the batch (the
/// transaction never happened); a crash after it finds the new anchor. The state file is only for status.
public struct SyncRunner: Sendable {
    public let settings: SyncSettings
    public let storePath: String
    public let identity: GatewayIdentity
    public let connector: CentralConnector
    public let logger: Logger

    public init(settings: SyncSettings, storePath: String, identity: GatewayIdentity, connector: CentralConnector, logger: Logger) {
        self.settings = settings
        self.storePath = storePath
        self.identity = identity
        self.connector = connector
        self.logger = logger
    }

    /// Runs until cancelled. With `once`, delivers everything there is and returns; the first error is thrown.
    public func run(once: Bool) async throws(SyncError) {
        let lock = try SyncLock(path: settings.stateFile + ".lock")
        var state = SyncState(gateway: identity.name, central: connector.url.description)
        var backoff = Backoff(initial: 0.5, maximum: settings.retryMaxSeconds, factor: 2, jitter: 0.2)
        var writer: CentralWriter?
        // Opened once, read-only: a WAL reader never blocks the capture daemon's writes.
        var opened: HeartDatabase?
        defer { withExtendedLifetime(lock) {} }
        while !Task.isCancelled {
            do {
                let session: CentralWriter
                if let writer { session = writer } else {
                    session = try await CentralWriter.open(connector: connector, gateway: identity, logger: logger)
                    writer = session
                    logger.notice("connected to the central database", metadata: [
                        "MESSAGE_ID": "\(MessageID.syncConnected.hex)", "central": "\(connector.url)",
                        "gateway": "\(identity.name)", "schema": "\(CentralSchema.version)"])
                }
                let store: HeartDatabase
                if let opened { store = opened } else {
                    store = try openStore()
                    opened = store
                }
                try await deliverAll(store: store, writer: session, state: &state)
                backoff.reset()
                if once { await session.finish(); return }
                try? await Task.sleep(nanoseconds: UInt64(settings.intervalSeconds * 1e9))
            } catch {
                await writer?.close()
                writer = nil
                if Task.isCancelled { break }
                state.lastError = .init(code: error.code, detail: error.detail, at: Date())
                record(&state)
                // Permanent errors (wrong password, newer schema, replaced store) wait the longest interval.
                let delay = error.isPermanent ? settings.retryMaxSeconds : backoff.next()
                logger.error("sync failed; retrying", metadata: [
                    "MESSAGE_ID": "\(MessageID.syncError.hex)", "code": "\(error.code.rawValue)", "error": "\(error.detail)",
                    "retry_s": "\(Deadline.format((delay * 10).rounded() / 10))"])
                if once { throw error }
                try? await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            }
        }
        await writer?.close()
    }

    /// Delivers pages until the store has nothing newer than the central anchor.
    func deliverAll(store: HeartDatabase, writer: CentralWriter, state: inout SyncState) async throws(SyncError) {
        var anchor = try await writer.deliveredAnchor()
        let storeAnchor = try storeCall { try store.currentAnchor() }
        guard anchor <= storeAnchor else {
            throw SyncError(.storeBehindCentral, "the central database has this gateway's changes up to anchor \(anchor) but "
                + "the store \(storePath) ends at \(storeAnchor): was it replaced? Use another sync.gateway name for a new store")
        }
        var batches = 0
        var step = try BatchSource(store: store, storePath: storePath, batchSize: settings.batchSize,
                                   batchRows: settings.batchRows, after: anchor).next().get()
        while let batch = step.batch {
            // The following batch (store read, decode, encoded rows) is prepared while the server writes this one.
            // It is delivered only after this one committed, and the writer refuses a batch that does not start
            // at the anchor PostgreSQL holds: a failure here drops it, and the next round reads from PostgreSQL's.
            async let following = step.rest.next()
            let report = try await writer.deliver(batch)
            step = try await following.get()
            anchor = report.anchor
            batches += 1
            state.samplesDelivered += report.inserted
            state.beatsDelivered += report.beats
            state.lastDelivery = Date()
            logger.debug("batch delivered", metadata: [
                "MESSAGE_ID": "\(MessageID.syncDelivered.hex)", "anchor": "\(anchor)", "inserted": "\(report.inserted)",
                "already_present": "\(report.alreadyPresent)", "stale_versions": "\(report.staleVersions)",
                "removed": "\(report.removed)", "beats": "\(report.beats)", "sessions": "\(report.sessions)",
                "people": "\(report.people)"])
            state.deliveredAnchor = anchor
            state.storeAnchor = max(anchor, storeAnchor)
            state.oldestUndelivered = try storeCall { try store.oldestChange(after: anchor) }
            record(&state)
        }
        if batches > 1 {
            logger.info("caught up", metadata: [
                "MESSAGE_ID": "\(MessageID.syncDelivered.hex)", "anchor": "\(anchor)", "batches": "\(batches)"])
        }
        let changed = state.deliveredAnchor != anchor || state.lastError != nil || state.oldestUndelivered != nil
        state.deliveredAnchor = anchor
        state.storeAnchor = max(anchor, storeAnchor)
        state.oldestUndelivered = nil
        state.lastError = nil
        // Rewritten when something changed, else every 30 s so status can tell a live process from a dead one.
        if changed || Date().timeIntervalSince(state.updatedAt) > 30 { record(&state) }
    }

    private func openStore() throws(SyncError) -> HeartDatabase {
        try storeCall { try HeartDatabase.openReadOnly(path: storePath) }
    }

    private func storeCall<T>(_ body: () throws -> T) throws(SyncError) -> T {
        do {
            return try body()
        } catch {
            throw SyncError(.store, "the store \(storePath): \(error)")
        }
    }

    private func record(_ state: inout SyncState) {
        state.updatedAt = Date()
        do {
            try state.write(to: settings.stateFile)
        } catch {
            logger.warning("cannot write the sync state file", metadata: ["path": "\(settings.stateFile)", "error": "\(error)"])
        }
    }
}
