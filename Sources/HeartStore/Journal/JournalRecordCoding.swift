import Foundation
import HealthModel

/// The bytes of one open-series snapshot in the journal: `u32le length, u32le CRC-32, payload`, the payload
/// holding a `CheckpointRecord`'s columns (UUID, kind, dates, series blob, metadata and device as JSON; the
/// JSON comes from `JournalJSONCache`).
enum JournalRecordCoding {
    static let frameHeaderSize = 8
    /// A record larger than this is damage, not data (a day of beats at 200 bpm encodes to well under 1 MiB).
    static let maximumPayload = 64 << 20

    static func frame(_ record: CheckpointRecord, metadataJSON: [UInt8], deviceJSON: [UInt8], into out: inout [UInt8]) {
        var writer = ByteWriter(capacity: record.contents.count + 128)
        withUnsafeBytes(of: record.uuid.uuid) { writer.bytes.append(contentsOf: $0) }
        writer.lengthPrefixed(Array(record.kind.utf8))
        writer.double(StoreCoding.seconds(record.start))
        writer.double(StoreCoding.seconds(record.end))
        writer.double(StoreCoding.seconds(record.updatedAt))
        writer.lengthPrefixed(record.contents)
        writer.lengthPrefixed(metadataJSON)
        writer.lengthPrefixed(deviceJSON)
        let payload = writer.bytes
        append(UInt32(payload.count), to: &out)
        append(CRC32.checksum(payload), to: &out)
        out.append(contentsOf: payload)
    }

    /// Decodes one payload whose checksum matched.
    static func record(from payload: [UInt8]) throws(StoreError) -> CheckpointRecord {
        do {
            var reader = ByteReader(payload)
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
        } catch let error as SeriesCodingError {
            throw StoreError(.corruptBlob, "journal record: \(error)")
        } catch {
            throw StoreError.wrap(error)
        }
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

/// The JSON of each open series' metadata and device as last encoded. They rarely change from one snapshot to
/// the next, and encoding them was a fifth of a journal append's CPU.
struct JournalJSONCache {
    private struct Entry {
        var metadata: Metadata
        var device: DeviceInfo?
        var metadataJSON: [UInt8]
        var deviceJSON: [UInt8]
    }

    private var entries: [UUID: Entry] = [:]

    mutating func json(for record: CheckpointRecord) -> (metadata: [UInt8], device: [UInt8]) {
        if let entry = entries[record.uuid], entry.metadata == record.metadata, entry.device == record.device {
            return (entry.metadataJSON, entry.deviceJSON)
        }
        let entry = Entry(metadata: record.metadata, device: record.device,
                          metadataJSON: Array((StoreCoding.json(record.metadata) ?? "").utf8),
                          deviceJSON: Array((record.device.map(StoreCoding.json) ?? "").utf8))
        entries[record.uuid] = entry
        return (entry.metadataJSON, entry.deviceJSON)
    }

    mutating func forget(_ uuids: [UUID]) {
        for uuid in uuids { entries[uuid] = nil }
    }
}
