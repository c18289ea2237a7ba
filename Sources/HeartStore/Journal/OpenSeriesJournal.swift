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
/// Appends are copies into a shared mapping of blocks reserved ahead (`SharedFileMapping`): no system call and no
/// inode update per checkpoint, so the thread that reads the sensors can append itself (`appendWithoutWaiting`)
/// while the store writer keeps everything that may wait — reserving the next blocks, compactions, saves. The
/// reserved tail is zeros, which end the scan like a torn record but are not counted as damage. Where the file
/// system cannot reserve (a full disk, no fallocate) appends fall back to `pwrite(2)` and report its errors.
///
/// The file is locked (`flock`) while open, so two processes never journal into one store.
final class OpenSeriesJournal {
    /// Address space mapped for appends (the compaction threshold is 1 MiB); beyond it appends use `pwrite`.
    static let mappedCapacity = 8 << 20
    /// Blocks reserved past the last record when the journal is opened or emptied, or an append finds no room (not
    /// beyond the compaction threshold).
    static let reserveAhead = 64 << 10

    /// The headers of the journal's versions, oldest first; new journals get the last (docs/ARCHITECTURE.md).
    static let headers: [[UInt8]] = [Array("heartd open-series journal 1\n".utf8), Array("heartd open-series journal 2\n".utf8)]
    static var fileHeader: [UInt8] { headers[headers.count - 1] }

    let path: String
    private let fd: Int32
    /// Bytes of intact records (plus the header): where the next record goes.
    private(set) var length: Int
    /// The file mapped for appends (nil for a journal opened to be read, or where mapping failed: every append is
    /// then a `pwrite`), and the size the writer compacts at (room is not reserved beyond it).
    private var mapping: SharedFileMapping?
    private let compactionBytes: Int
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

    /// Opens (creating) and locks the journal, and cuts a torn tail so appends follow intact records. With
    /// `compactionBytes` (the writer's journal) appends go through a mapping; without (recovery), by `pwrite`.
    init(path: String, compactionBytes: Int? = nil) throws(StoreError) {
        self.path = path
        self.compactionBytes = compactionBytes ?? 0
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
        if compactionBytes != nil {
            mapping = try? SharedFileMapping(fd: fd, capacity: Self.mappedCapacity)
            reserveAhead(for: 0)  // the first checkpoints need not wait for the store writer
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

    /// Appends checkpoints at the end of the intact records (`JournalAppend` says how each is recorded): a copy into
    /// the mapping, reserving more blocks first when the reserved room is short; where that fails (a full disk), one
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
        if let mapping, length + frames.count > mapping.reserved { reserveAhead(for: frames.count) }
        if copy(batch) { return }
        let bytes = frames
        let written = bytes.withUnsafeBytes { buffer in pwrite(fd, buffer.baseAddress, buffer.count, off_t(length)) }
        if written == bytes.count {
            length += bytes.count
            batch.applied(to: &journaled)
            mapping?.fileResized(to: max(length, mapping?.reserved ?? 0))
            return
        }
        let failure = written < 0 ? Self.error("cannot append to", path)
                                  : StoreError(.diskFull, "short write to \(path): \(written) of \(bytes.count) bytes")
        // The reservation goes with the torn bytes (zeros must follow the last record); the next append reserves anew.
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw StoreError(failure.code, "\(failure.detail); cutting the torn record off failed too")
        }
        mapping?.fileResized(to: length)
        throw failure
    }

    /// Appends as `append` does if that is a copy into blocks already reserved: no system call, no lock but the
    /// caller's, no database read. False, with nothing written, otherwise — a series that needs its base from the
    /// database, no room left, an older journal, no mapping — and the caller hands the checkpoints to `append`.
    func appendWithoutWaiting(_ updates: [SeriesCheckpoint], updatedAt: Date) -> Bool {
        guard !updates.isEmpty else { return true }
        guard !olderVersion, mapping != nil,
              let batch = try? JournalAppend(updates, updatedAt: updatedAt, journaled: journaled, frames: &frames,
                                             tail: &tail, base: { _ throws(StoreError) in throw Self.needsDatabase })
        else { return false }
        return copy(batch)
    }

    private static let needsDatabase = StoreError(.notFound, "the series' base is in the database")

    /// Copies `batch`'s records (`frames`) into the reserved room after the last record; false where they do not fit.
    private func copy(_ batch: JournalAppend) -> Bool {
        guard let mapping, frames.withUnsafeBytes({ mapping.write($0, at: length) }) else { return false }
        length += frames.count
        batch.applied(to: &journaled)
        return true
    }

    /// Reserves `bytes` past the last record and up to `reserveAhead` more, not beyond the compaction threshold
    /// (the journal stays near its limit), and unmaps the pages behind the last record. Best effort: where the file
    /// system cannot reserve (a full disk), appends fall back to `pwrite`, which reports the error.
    private func reserveAhead(for bytes: Int) {
        guard let mapping else { return }
        let ahead = min(Self.reserveAhead, max(0, compactionBytes - length - bytes))
        try? mapping.reserve(upTo: min(length + bytes + ahead, mapping.capacity))
        mapping.release(below: length)
    }

    /// Forgets series that are finished: their records stay until the journal is emptied, but nothing more is
    /// written against them.
    func forget(_ uuids: [UUID]) {
        journaled.removeAll { uuids.contains($0.uuid) }
    }

    /// Cuts the room reserved for appends off the file (a daemon stopping cleanly leaves only its records); the next
    /// append reserves again.
    func releaseReservedRoom() throws(StoreError) {
        guard let mapping, mapping.reserved > length else { return }
        guard ftruncate(fd, off_t(length)) == 0 else { throw Self.error("cannot truncate", path) }
        mapping.fileResized(to: length)
    }

    /// Empties the journal (its snapshots are in the database now).
    func reset() throws(StoreError) {
        guard ftruncate(fd, 0) == 0 else { throw Self.error("cannot truncate", path) }
        mapping?.fileResized(to: 0)
        let header = Self.fileHeader
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw Self.error("cannot write the header of", path) }
        length = header.count
        journaled = []
        damagedOnOpen = 0
        olderVersion = false
        mapping?.fileResized(to: length)
        reserveAhead(for: 0)  // an emptied journal is its header and zeros: no record
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
