import Foundation
import GRDB
import HealthModel

/// Conversions shared by the records: dates as reference-date seconds, JSON columns, UUID blobs.
enum StoreCoding {
    static func seconds(_ date: Date) -> Double { date.timeIntervalSinceReferenceDate }
    static func date(_ seconds: Double) -> Date { Date(timeIntervalSinceReferenceDate: seconds) }

    static func uuidBlob(_ uuid: UUID) -> Data {
        withUnsafeBytes(of: uuid.uuid) { Data($0) }
    }

    static func uuid(_ data: Data) throws(StoreError) -> UUID {
        guard data.count == 16 else { throw StoreError(.corruptBlob, "a stored UUID has \(data.count) bytes, not 16") }
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { $0.copyBytes(from: data) }
        return UUID(uuid: raw)
    }

    /// Metadata as a JSON object with sorted keys; nil when empty.
    static func json(_ metadata: Metadata) -> String? {
        metadata.isEmpty ? nil : JSONText.metadata(metadata)
    }

    static func metadata(_ json: String?) throws(StoreError) -> Metadata {
        guard let json, !json.isEmpty else { return [:] }
        if let flat = JSONText.flatStrings(json) { return flat }
        do {
            return try JSONDecoder().decode(Metadata.self, from: Data(json.utf8))
        } catch {
            throw StoreError(.corruptBlob, "metadata JSON cannot be decoded: \(error)")
        }
    }

    static func json(_ device: DeviceInfo) -> String {
        JSONText.device(device)
    }

    static func device(_ json: String) throws(StoreError) -> DeviceInfo {
        do {
            return try JSONDecoder().decode(DeviceInfo.self, from: Data(json.utf8))
        } catch {
            throw StoreError(.corruptBlob, "device JSON cannot be decoded: \(error)")
        }
    }

    /// The quantity type for a stored identifier.
    static func quantityType(_ identifier: String) throws(StoreError) -> QuantityType {
        guard let type = QuantityType.all.first(where: { $0.identifier == identifier }) else {
            throw StoreError(.corruptBlob, "unknown quantity type \(identifier)")
        }
        return type
    }

    static func encodeContents(_ sample: Sample) throws(StoreError) -> [UInt8] {
        do {
            switch sample {
            case .heartbeatSeries(let s): return try HeartbeatSeriesCoding.encode(s.beats)
            case .quantity(let s): return try QuantitySeriesCoding.encode(s.points, seriesStart: s.start)
            }
        } catch {
            throw StoreError(.invalidSample, "sample \(sample.uuid) cannot be encoded: \(error)")
        }
    }
}
