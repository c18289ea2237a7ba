import Foundation
import HealthModel

/// Reads the open-series journal's bytes front to back and applies its records: the newest state of every series
/// journaled, a full snapshot with the deltas after it applied. Stops at the first record that is cut short, fails
/// its CRC, cannot be decoded or does not apply (a delta without its series, or keeping more items than it has):
/// what came before stands, the rest is damage.
struct JournalScan {
    /// The newest state of each series, in the order they first appear.
    private(set) var records: [CheckpointRecord] = []
    /// The journal's format version (1 or 2; 0: no header).
    private(set) var version = 0
    /// Bytes of the header and the intact records: where the next record goes.
    private(set) var validLength = 0
    private(set) var fileLength = 0
    /// Bytes after the intact records up to the last non-zero byte: a torn record or damage. The zeros of blocks
    /// reserved ahead for appends (`OpenSeriesJournal`) are not damage.
    private(set) var damagedLength = 0

    private var index: [UUID: Int] = [:]
    /// Decoded items of series a delta changed (encoded back into `records` at the end).
    private var items: [Int: SeriesItems] = [:]

    init(_ bytes: [UInt8], path: String) throws(StoreError) {
        fileLength = bytes.count
        guard let version = OpenSeriesJournal.headers.firstIndex(where: { bytes.starts(with: $0) }) else {
            // Empty, or not a journal: nothing here can be trusted.
            if !bytes.isEmpty && !OpenSeriesJournal.headers.contains(where: { $0.starts(with: bytes) }) {
                throw StoreError(.corruptBlob, "\(path) is not a heartd open-series journal")
            }
            return
        }
        self.version = version + 1
        var offset = OpenSeriesJournal.headers[version].count
        validLength = offset
        let frame = JournalRecordCoding.frameHeaderSize
        while bytes.count - offset >= frame {
            let size = Int(JournalRecordCoding.uint32(bytes[offset..<offset + 4]))
            let crc = JournalRecordCoding.uint32(bytes[offset + 4..<offset + 8])
            guard size <= JournalRecordCoding.maximumPayload, bytes.count - offset - frame >= size else { break }
            let payload = Array(bytes[offset + frame..<offset + frame + size])
            guard CRC32.checksum(payload) == crc,
                  let record = try? JournalRecordCoding.record(from: payload, version: self.version),
                  apply(record) else { break }
            offset += frame + size
            validLength = offset
        }
        let lastData = bytes[validLength...].lastIndex { $0 != 0 }
        damagedLength = lastData.map { $0 + 1 - validLength } ?? 0
        for (i, changed) in items {
            let start = records[i].start
            do {
                records[i].contents = try changed.encoded(from: 0, seriesStart: start)
            } catch {
                throw StoreError(.corruptBlob, "journal series \(records[i].uuid) cannot be encoded again: \(error)")
            }
        }
    }

    private mutating func apply(_ record: JournalRecord) -> Bool {
        switch record {
        case .full(let full):
            if let i = index[full.uuid] {
                records[i] = full
                items[i] = nil
            } else {
                index[full.uuid] = records.count
                records.append(full)
            }
            return true
        case .delta(let delta):
            guard let i = index[delta.uuid] else { return false }
            let base = records[i]
            guard var current = items[i] ?? (try? SeriesItems.decode(base.contents, kind: base.kind, start: base.start)),
                  let tail = try? SeriesItems.decode(delta.tail, kind: base.kind, start: base.start),
                  current.replaceTail(keeping: delta.keep, with: tail) else { return false }
            items[i] = current
            records[i].end = delta.end
            records[i].updatedAt = delta.updatedAt
            return true
        }
    }
}
