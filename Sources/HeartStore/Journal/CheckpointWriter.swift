import Foundation
import HealthModel
import Synchronization

/// Writes the checkpoints of open series for a daemon: each call appends the changed series to the journal
/// (`<database>-open`, one `pwrite`, no SQLite transaction; a series already in the journal as a delta: what it
/// added since); when the journal passes `compactionBytes`, the newest state of every open series goes to
/// `open_series` in one transaction and the journal starts over. `HeartDatabase.recoverCheckpoints` reads both.
/// An in-memory database has no journal: every checkpoint is an SQLite write, as with
/// `HeartDatabase.writeCheckpoints`.
///
/// Thread safety: calls are serialized by a lock; the store writer thread makes them.
public final class CheckpointWriter: Sendable {
    /// The journal's size that triggers a compaction into the database: bounds the file and the recovery's work.
    public static let defaultCompactionBytes = 1 << 20

    private struct State: ~Copyable {
        var journal: OpenSeriesJournal?
        var compactions = 0
    }

    public let database: HeartDatabase
    public let compactionBytes: Int
    private let state: Mutex<State>

    /// Opens and locks the journal of `database` (none for an in-memory one). The daemon calls it after
    /// `recoverCheckpoints()`, which empties the journal; snapshots still in it are moved to `open_series` first,
    /// so a compaction can never drop them.
    public init(database: HeartDatabase, compactionBytes: Int = CheckpointWriter.defaultCompactionBytes) throws(StoreError) {
        self.database = database
        self.compactionBytes = compactionBytes
        let journal = try database.journalPath.map { path throws(StoreError) in
            try OpenSeriesJournal(path: path)
        }
        if let journal, case let leftovers = try journal.records().records, !leftovers.isEmpty {
            try database.write { db in try HeartDatabase.absorb(leftovers, in: db) }
            try journal.reset()
        }
        state = Mutex(State(journal: journal))
    }

    /// Journals snapshots of the open series that changed (upsert by UUID).
    public func write(_ open: [Sample]) throws(StoreError) {
        try write(open.map(SeriesCheckpoint.full))
    }

    /// Journals the checkpoints of open series that changed: whole series as full records, appends as delta
    /// records of what they add (`OpenSeriesJournal.append`) — or, when the journal passed `compactionBytes`, into
    /// `open_series` with the newest state of every other open series (a compaction). A change that does not
    /// follow what is stored of its series throws (`.conflict`, `.notFound`): the pipeline then sends whole series.
    public func write(_ updates: [SeriesCheckpoint]) throws(StoreError) {
        guard !updates.isEmpty else { return }
        let now = Date()
        try state.withLock { state throws(StoreError) in
            guard let journal = state.journal else {
                try database.writeCheckpoints(updates, updatedAt: now)
                return
            }
            if journal.length >= compactionBytes {
                do {
                    try compact(&state, journal: journal, with: updates, at: now)
                    return
                } catch {
                    // The database may be full where the journal still has room: keep journaling.
                }
            }
            // A series journaled before the last compaction has its base in `open_series` (read once after each).
            try journal.append(updates, updatedAt: now) { append throws(StoreError) in
                try database.checkpointBase(append, updatedAt: now)
            }
        }
    }

    /// `write`, when it is one `pwrite` of the journal: not while another call holds the journal, not when a
    /// compaction is due, not for a series whose base must be read from `open_series`, and not when the append
    /// fails (a full disk: the caller queues the checkpoints for `write`, which reports the error). Returns whether
    /// the checkpoints were journaled. Why a `pwrite` may run on the thread that reads the sensors where a
    /// transaction may not: it copies a few hundred bytes into the page cache; it waits for the disk only when the
    /// kernel throttles a writer with too many dirty pages, and the daemon's writes are far below that.
    public func appendWithoutWaiting(_ updates: [SeriesCheckpoint]) -> Bool {
        guard !updates.isEmpty else { return true }
        let now = Date()
        return state.withLockIfAvailable { state -> Bool in
            guard let journal = state.journal, journal.length < compactionBytes else { return false }
            do {
                try journal.append(updates, updatedAt: now) { _ throws(StoreError) in
                    throw StoreError(.conflict, "the series' base is in open_series")
                }
                return true
            } catch {
                return false
            }
        } ?? false
    }

    /// Forgets series whose finished samples were saved (their `open_series` rows went in the same transaction);
    /// their old records in the journal are ignored by recovery (a UUID is saved once). When no journaled
    /// series is left open the journal is emptied, so a clean stop leaves nothing for the next start to read.
    public func closed(_ uuids: [UUID]) {
        state.withLock { state in
            guard let journal = state.journal else { return }
            journal.forget(uuids)
            if journal.journaledSeries.isEmpty, journal.length > OpenSeriesJournal.fileHeader.count {
                // Best effort: if it fails, recovery skips the saved series' snapshots anyway.
                try? journal.reset()
            }
        }
    }

    /// How many times the journal was compacted into the database.
    public var compactions: Int { state.withLock { $0.compactions } }

    /// The newest state of every series still open goes to `open_series` — read back from the journal (compactions
    /// are rare, and the writer holds no copy of the series), with `updates` applied —; then the journal starts over.
    private func compact(_ state: inout State, journal: OpenSeriesJournal, with updates: [SeriesCheckpoint],
                         at now: Date) throws(StoreError) {
        var newest: [UUID: CheckpointRecord] = [:]
        let open = journal.journaledSeries
        for record in try journal.records().records where open.contains(record.uuid) { newest[record.uuid] = record }
        for update in updates {
            switch update {
            case .full(let sample):
                newest[sample.uuid] = try CheckpointRecord(sample: sample, updatedAt: now)
            case .appended(let append):
                if let record = newest[append.uuid] {
                    newest[append.uuid] = try record.applying(append, updatedAt: now).record
                } else {
                    newest[append.uuid] = try database.checkpointBase(append, updatedAt: now).record
                }
            }
        }
        try database.writeRecords(Array(newest.values))
        try journal.reset()
        state.compactions += 1
    }
}

extension HeartDatabase {
    /// The open-series journal beside the database file (nil in memory).
    public var journalPath: String? { path.map { $0 + "-open" } }

    func writeRecords(_ records: [CheckpointRecord]) throws(StoreError) {
        guard !records.isEmpty else { return }
        try write { db in
            for record in records { try record.replace(in: db) }
        }
    }
}
