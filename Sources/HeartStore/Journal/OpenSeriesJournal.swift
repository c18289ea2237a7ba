import Foundation
import Glibc
import Posix

/// The append-only file of open-series snapshots beside the database (`<database>-open`).
///
/// Why a file and not SQLite: a checkpoint every second as an SQLite transaction (locks, WAL frames of whole
/// pages, statement work) was most of the daemon's CPU at one notification a second; an append is one
/// `write(2)`. Like a WAL commit with `synchronous = NORMAL`, an append survives a killed process but not
/// necessarily a power cut. The last intact record of a UUID is its newest snapshot; a torn tail (a crash inside
/// a write) fails its CRC and is ignored with everything after it.
///
/// The file is locked (`flock`) while open, so two processes never journal into one store.
final class OpenSeriesJournal {
    static let fileHeader: [UInt8] = Array("heartd open-series journal 1\n".utf8)

    let path: String
    private let fd: Int32
    /// Bytes of intact records (plus the header): where the next record goes.
    private(set) var length: Int
    private var json = JournalJSONCache()
    /// Bytes after the last intact record when the file was opened (a write cut short by a crash).
    private var damagedOnOpen = 0

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
        damagedOnOpen = scan.validLength > 0 ? scan.fileLength - scan.validLength : 0
        if scan.validLength == 0 {
            try reset()
        } else if scan.validLength < scan.fileLength {
            guard ftruncate(fd, off_t(scan.validLength)) == 0 else { throw Self.error("cannot truncate", path) }
        }
    }

    deinit { close(fd) }

    /// The intact records, oldest first, and how many damaged bytes followed them (cut off when it was opened).
    func records() throws(StoreError) -> (records: [CheckpointRecord], damagedBytes: Int) {
        let scan = try Self.scan(fd: fd, path: path)
        return (scan.records, damagedOnOpen + scan.fileLength - scan.validLength)
    }

    /// The intact records of the journal at `path`, read without opening it for writing or locking it: what a reader
    /// (`heartctl --db`) may see of a running daemon's open series. No file: none. A record being written is cut
    /// short or fails its CRC, and is left out with what follows it, as on open.
    static func peek(path: String) throws(StoreError) -> [CheckpointRecord] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return [] }
            throw error("cannot open", path)
        }
        defer { close(fd) }
        return try scan(fd: fd, path: path).records
    }

    /// Appends snapshots in one `write(2)` at the end of the intact records. On failure the file is cut back to
    /// that length; should even that fail, the next append overwrites the torn bytes (it writes at the same offset).
    func append(_ records: [CheckpointRecord]) throws(StoreError) {
        guard !records.isEmpty else { return }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(records.reduce(0) { $0 + $1.contents.count + 160 })
        for record in records {
            let json = json.json(for: record)
            JournalRecordCoding.frame(record, metadataJSON: json.metadata, deviceJSON: json.device, into: &bytes)
        }
        let written = bytes.withUnsafeBytes { buffer in pwrite(fd, buffer.baseAddress, buffer.count, off_t(length)) }
        if written == bytes.count {
            length += bytes.count
            return
        }
        let failure = written < 0 ? Self.error("cannot append to", path)
                                  : StoreError(.diskFull, "short write to \(path): \(written) of \(bytes.count) bytes")
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw StoreError(failure.code, "\(failure.detail); cutting the torn record off failed too")
        }
        throw failure
    }

    /// Drops what is cached for series that are finished.
    func forget(_ uuids: [UUID]) { json.forget(uuids) }

    /// Empties the journal (its snapshots are in the database now).
    func reset() throws(StoreError) {
        guard ftruncate(fd, 0) == 0 else { throw Self.error("cannot truncate", path) }
        let header = Self.fileHeader
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw Self.error("cannot write the header of", path) }
        length = header.count
        damagedOnOpen = 0
    }

    private struct Scan {
        var records: [CheckpointRecord] = []
        var validLength = 0
        var fileLength = 0
    }

    /// Reads the whole file; stops at the first record that is cut short, fails its CRC or cannot be decoded.
    private static func scan(fd: Int32, path: String) throws(StoreError) -> Scan {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, off_t(bytes.count)) }
            if n < 0 { throw error("cannot read", path) }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        var scan = Scan(fileLength: bytes.count)
        guard bytes.starts(with: fileHeader) else {
            // Empty, or not a journal of this version: nothing here can be trusted.
            if !bytes.isEmpty && !fileHeader.starts(with: bytes) {
                throw StoreError(.corruptBlob, "\(path) is not a heartd open-series journal")
            }
            return scan
        }
        var offset = fileHeader.count
        scan.validLength = offset
        let frame = JournalRecordCoding.frameHeaderSize
        while bytes.count - offset >= frame {
            let size = Int(JournalRecordCoding.uint32(bytes[offset..<offset + 4]))
            let crc = JournalRecordCoding.uint32(bytes[offset + 4..<offset + 8])
            guard size <= JournalRecordCoding.maximumPayload, bytes.count - offset - frame >= size else { break }
            let payload = Array(bytes[offset + frame..<offset + frame + size])
            guard CRC32.checksum(payload) == crc,
                  let record = try? JournalRecordCoding.record(from: payload) else { break }
            scan.records.append(record)
            offset += frame + size
            scan.validLength = offset
        }
        return scan
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
