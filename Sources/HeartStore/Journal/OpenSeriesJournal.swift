import Foundation
import Glibc
import HealthModel
import Posix

/// The append-only file of open-series snapshots beside the database (`<database>-open`).
///
/// Why a file and not SQLite: a checkpoint every second as an SQLite transaction (locks, WAL frames of whole
/// pages, statement work) was most of the daemon's CPU at one notification a second; an append is one
/// `write(2)`. Like a WAL commit with `synchronous = NORMAL`, an append survives a killed process but not
/// necessarily a power cut. A series' first record after the journal was emptied is a full snapshot, the next ones
/// deltas (what was added since), so a checkpoint costs what it adds, not the whole series; a series' newest state
/// is its last full record with the deltas after it applied (`JournalScan`). A torn tail (a crash inside a write)
/// fails its CRC and is ignored with everything after it.
///
/// Appends are `pwrite(2)` calls, made by the store writer or, while it is idle, by the pipeline
/// (`CheckpointWriter.appendWithoutWaiting`). Why not a shared mapping: a store into a `MAP_SHARED` page the file system cannot
/// back — a full copy-on-write file system (btrfs) rewriting a page already written back, a file cut under the
/// mapping, an I/O error — kills the process with SIGBUS, where `pwrite` returns `ENOSPC` or `EIO` and capture goes
/// on with the checkpoint kept in memory (`BackgroundSink`).
///
/// The file is locked (`flock`) while open, so two processes never journal into one store.
final class OpenSeriesJournal {
    /// The headers of the journal's versions, oldest first; new journals get the last (docs/ARCHITECTURE.md).
    static let headers: [[UInt8]] = [Array("heartd open-series journal 1\n".utf8), Array("heartd open-series journal 2\n".utf8)]
    static var fileHeader: [UInt8] { headers[headers.count - 1] }

    let path: String
    private let fd: Int32
    /// Bytes of intact records (plus the header): where the next record goes.
    private(set) var length: Int
    /// What was journaled of each series since the journal was last emptied (deltas are written against it). A
    /// few series per sensor: searched, not hashed (this is read and written on every checkpoint).
    private var journaled: [(uuid: UUID, state: JournaledSeries)] = []
    /// Scratch buffers of `JournalAppend`, kept from append to append (no allocation per checkpoint).
    private var frames: [UInt8] = []
    private var tail: [UInt8] = []
    /// Bytes after the last intact record when the file was opened (a write cut short by a crash).
    private var damagedOnOpen = 0
    /// The file holds records of an older version: they are read, but nothing is appended until `reset`.
    private var olderVersion = false

    /// Opens (creating) and locks the journal, and cuts a torn tail so appends follow intact records.
    init(path: String) throws(StoreError) {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.error("cannot open", path) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let busy = errno == EWOULDBLOCK
            let error = busy ? StoreError(.busy, "\(path) is in use by another heartd on this store")
                             : Self.error("cannot lock", path)
            close(fd)
            throw error
        }
        self.fd = fd
        self.length = 0
        // Fully initialized: if this throws, deinit closes the descriptor.
        let scan = try Self.scan(fd: fd, path: path)
        length = scan.validLength
        // A header cut short (a crash while emptying the file) is not lost data.
        let damaged = scan.validLength > 0 ? scan.damagedLength : 0
        if scan.validLength == 0 || (scan.version < Self.headers.count && scan.records.isEmpty) {
            try reset()  // nothing to keep: start a journal of this version
            damagedOnOpen = damaged
        } else {
            damagedOnOpen = damaged
            olderVersion = scan.version < Self.headers.count
            if scan.validLength < scan.fileLength {
                guard ftruncate(fd, off_t(scan.validLength)) == 0 else { throw Self.error("cannot truncate", path) }
            }
        }
    }

    deinit { close(fd) }

    /// The newest state of every series journaled, in the order they first appear, and how many damaged bytes
    /// followed the intact records (cut off when it was opened).
    func records() throws(StoreError) -> (records: [CheckpointRecord], damagedBytes: Int) {
        let scan = try Self.scan(fd: fd, path: path)
        return (scan.records, damagedOnOpen + scan.damagedLength)
    }

    /// The newest state of every series in the journal at `path`, read without opening it for writing or locking
    /// it: what a reader (`heartctl --db`) may see of a running daemon's open series. No file: none. A record being
    /// written is cut short or fails its CRC, and is left out with what follows it, as on open.
    static func peek(path: String) throws(StoreError) -> [CheckpointRecord] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            throw error("cannot open", path)
        }
        defer { close(fd) }
        return try scan(fd: fd, path: path).records
    }

    /// The series journaled since the journal was last emptied and not forgotten since.
    var journaledSeries: Set<UUID> { Set(journaled.map(\.uuid)) }

    /// Appends checkpoints at the end of the intact records (`JournalAppend` says how each is recorded) with one
    /// `pwrite(2)`, whose error is thrown — the file is then cut back to its length; should even that fail, the next
    /// append overwrites the torn bytes (it writes at the same offset).
    func append(_ updates: [SeriesCheckpoint], updatedAt: Date,
                base: (SeriesAppend) throws(StoreError) -> (record: CheckpointRecord, count: Int)) throws(StoreError) {
        guard !updates.isEmpty else { return }
        guard !olderVersion else {
            throw StoreError(.corruptBlob, "\(path) holds records of an older heartd: recover them before journaling")
        }
        let batch = try JournalAppend(updates, updatedAt: updatedAt, journaled: journaled, frames: &frames, tail: &tail,
                                      base: base)
        let written = frames.withUnsafeBytes { buffer in pwrite(fd, buffer.baseAddress, buffer.count, off_t(length)) }
        if written == frames.count {
            length += frames.count
            batch.applied(to: &journaled)
            return
        }
        let failure = written < 0 ? Self.error("cannot append to", path)
                                  : StoreError(.diskFull, "short write to \(path): \(written) of \(frames.count) bytes")
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw StoreError(failure.code, "\(failure.detail); cutting the torn record off failed too")
        }
        throw failure
    }

    /// Forgets series that are finished: their records stay until the journal is emptied, but nothing more is
    /// written against them.
    func forget(_ uuids: [UUID]) {
        journaled.removeAll { uuids.contains($0.uuid) }
    }

    /// Empties the journal (its snapshots are in the database now).
    func reset() throws(StoreError) {
        guard ftruncate(fd, 0) == 0 else { throw Self.error("cannot truncate", path) }
        let header = Self.fileHeader
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw Self.error("cannot write the header of", path) }
        length = header.count
        journaled = []
        damagedOnOpen = 0
        olderVersion = false
    }

    /// Reads the whole file and applies its records (`JournalScan`).
    private static func scan(fd: Int32, path: String) throws(StoreError) -> JournalScan {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if n < 0 { throw error("cannot read", path) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return try JournalScan(bytes, path: path)
    }

    private static func error(_ what: String, _ path: String) -> StoreError {
        let code = errno
        let detail = "\(what) \(path): \(errnoText(code))"
        switch code {
        case ENOSPC, EDQUOT, EFBIG: return StoreError(.diskFull, detail)
        case EROFS, EACCES, EPERM: return StoreError(.readOnly, detail)
        default: return StoreError(.io, detail)
        }
    }
}
