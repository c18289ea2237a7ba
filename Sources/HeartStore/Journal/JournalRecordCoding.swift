import Foundation
import HealthModel

/// One record of the open-series journal, decoded.
enum JournalRecord {
    /// A whole snapshot of a series.
    case full(CheckpointRecord)
    /// What changed in a series since its previous record in the journal: keep its first `keep` items, append
    /// `tail` (a series blob of the items that follow), and the series now ends at `end`.
    case delta(JournalDelta)
}

struct JournalDelta {
    var uuid: UUID
    var end: Date
    var updatedAt: Date
    var keep: Int
    var tail: [UInt8]
}

/// The bytes of the open-series journal's records: `u32le length, u32le CRC-32, payload`.
///
/// Version 2 (written): the payload starts with its type — 0, a full snapshot: the `CheckpointRecord`'s columns
/// (UUID, kind, dates, series blob, metadata and device as JSON);
/// 1, a delta: UUID, end, updatedAt, `keep` (varint) and the blob of the items after the first `keep`.
/// Version 1 (read, for a journal left by an older heartd): every payload is a full snapshot, without the type.
enum JournalRecordCoding {
    static let frameHeaderSize = 8
    /// A record larger than this is damage, not data (a day of beats at 200 bpm encodes to well under 1 MiB).
    static let maximumPayload = 64 << 20

    private static let fullType: UInt8 = 0, deltaType: UInt8 = 1

    static func frameFull(_ record: CheckpointRecord, into out: inout [UInt8]) {
        framed(into: &out) { writer in
            writer.byte(fullType)
            fullPayload(record, into: &writer)
        }
    }

    static func frameDelta(_ delta: JournalDelta, into out: inout [UInt8]) {
        framed(into: &out) { writer in
            writer.byte(deltaType)
            withUnsafeBytes(of: delta.uuid.uuid) { writer.bytes.append(contentsOf: $0) }
            writer.double(StoreCoding.seconds(delta.end))
            writer.double(StoreCoding.seconds(delta.updatedAt))
            writer.varint(UInt64(delta.keep))
            writer.lengthPrefixed(delta.tail)
        }
    }

    /// Writes a record's payload straight after its frame header in `out`, then fills the header in (no payload
    /// array of its own to copy).
    private static func framed(into out: inout [UInt8], _ payload: (inout ByteWriter) -> Void) {
        var writer = ByteWriter(capacity: 0)
        swap(&writer.bytes, &out)
        let start = writer.bytes.count
        writer.zeros(frameHeaderSize)
        payload(&writer)
        swap(&writer.bytes, &out)
        let size = out.count - start - frameHeaderSize
        let crc = out.withUnsafeBufferPointer { CRC32.checksum(UnsafeBufferPointer(rebasing: $0[(start + frameHeaderSize)...])) }
        for i in 0..<4 {
            out[start + i] = UInt8(truncatingIfNeeded: UInt32(size) >> (8 * i))
            out[start + 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i))
        }
    }

    /// A full snapshot's fields (the whole payload in version 1).
    static func fullPayload(_ record: CheckpointRecord, into writer: inout ByteWriter) {
        withUnsafeBytes(of: record.uuid.uuid) { writer.bytes.append(contentsOf: $0) }
        writer.lengthPrefixed(Array(record.kind.utf8))
        writer.double(StoreCoding.seconds(record.start))
        writer.double(StoreCoding.seconds(record.end))
        writer.double(StoreCoding.seconds(record.updatedAt))
        writer.lengthPrefixed(record.contents)
        writer.lengthPrefixed(Array((StoreCoding.json(record.metadata) ?? "").utf8))
        writer.lengthPrefixed(Array((record.device.map(StoreCoding.json) ?? "").utf8))
    }

    static func frame(_ payload: [UInt8], into out: inout [UInt8]) {
        append(UInt32(payload.count), to: &out)
        append(CRC32.checksum(payload), to: &out)
        out.append(contentsOf: payload)
    }

    /// Decodes one payload whose checksum matched, of a journal of `version`.
    static func record(from payload: [UInt8], version: Int) throws(StoreError) -> JournalRecord {
        do {
            var reader = ByteReader(payload)
            if version == 1 { return .full(try full(&reader)) }
            switch try reader.byte() {
            case fullType: return .full(try full(&reader))
            case deltaType:
                let uuid = try StoreCoding.uuid(Data(try reader.bytes(count: 16)))
                let end = StoreCoding.date(try reader.double())
                let updatedAt = StoreCoding.date(try reader.double())
                let keep = try reader.varint()
                let tail = try reader.lengthPrefixed()
                guard reader.isAtEnd, keep <= UInt64(Int32.max) else {
                    throw StoreError(.corruptBlob, "journal delta \(uuid): malformed")
                }
                return .delta(JournalDelta(uuid: uuid, end: end, updatedAt: updatedAt, keep: Int(keep), tail: tail))
            case let type:
                throw StoreError(.corruptBlob, "journal record of unknown type \(type)")
            }
        } catch let error as SeriesCodingError {
            throw StoreError(.corruptBlob, "journal record: \(error)")
        } catch {
            throw StoreError.wrap(error)
        }
    }

    private static func full(_ reader: inout ByteReader) throws -> CheckpointRecord {
        let uuid = try StoreCoding.uuid(Data(try reader.bytes(count: 16)))
        guard let kind = String(validating: try reader.lengthPrefixed(), as: UTF8.self) else {
            throw StoreError(.corruptBlob, "journal record \(uuid): the kind is not UTF-8")
        }
        let start = StoreCoding.date(try reader.double())
        let end = StoreCoding.date(try reader.double())
        let updatedAt = StoreCoding.date(try reader.double())
        let contents = try reader.lengthPrefixed()
        let metadata = try StoreCoding.metadata(String(decoding: try reader.lengthPrefixed(), as: UTF8.self))
        let deviceJSON = String(decoding: try reader.lengthPrefixed(), as: UTF8.self)
        let device = deviceJSON.isEmpty ? nil : try StoreCoding.device(deviceJSON)
        guard reader.isAtEnd else { throw StoreError(.corruptBlob, "journal record \(uuid): bytes after the last field") }
        return CheckpointRecord(uuid: uuid, kind: kind, start: start, end: end, contents: contents,
                                metadata: metadata, device: device, updatedAt: updatedAt)
    }

    static func uint32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var value: UInt32 = 0
        for (i, b) in bytes.prefix(4).enumerated() { value |= UInt32(b) << UInt32(8 * i) }
        return value
    }

    private static func append(_ value: UInt32, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }
}
