import Foundation
import HealthModel
import HeartStore

/// One page of store changes laid out as the columns the central tables take (`unnest` of arrays: one
/// statement per table instead of one per row). Pure: no I/O, so it is tested without a server.
///
/// NULLs travel as sentinels PostgresNIO's arrays can carry and SQL turns back with `NULLIF`: device 0,
/// NaN for a number, "" for text.
struct CentralBatch: Sendable {
    /// A physical sensor across gateways: its address plus its DIS serial number.
    struct DeviceKey: Sendable, Hashable {
        var address: String
        var serial: String

        init(_ info: DeviceInfo) {
            address = info.localIdentifier ?? ""
            serial = info.metadata[MetadataKey.serialNumber] ?? ""
        }
    }

    struct DeviceRow: Sendable {
        var info: DeviceInfo
        var firstSeen: Date
        var lastSeen: Date
    }

    /// A sample carrying a sync identifier: the central rule (replace only a lower version) is applied before insert.
    struct Versioned: Sendable, Hashable {
        var uuid: UUID
        var identifier: String
        var version: Int64
    }

    let fromAnchor: Int64
    let toAnchor: Int64
    var devices: [DeviceKey: DeviceRow] = [:]
    var samples: [StoredSample]
    var versioned: [Versioned] = []
    var deleted: [StoredDeletion]
    /// Sessions started or stopped (their state now); a later save of a session replaces the earlier one.
    var sessions: [Session]
    /// People saved (their state now); a later save of a person replaces the earlier one.
    var people: [Person]

    init(_ changes: ReplicaChanges, from anchor: Int64) {
        fromAnchor = anchor
        toAnchor = changes.anchor
        samples = changes.added
        deleted = changes.deleted
        sessions = changes.sessions
        people = changes.people
        for stored in changes.added {
            let sample = stored.sample
            if let device = sample.device {
                let key = DeviceKey(device)
                let known = devices[key]
                // The newest info of a device wins; its seen range covers every sample of the batch.
                let newer = known.map { sample.end >= $0.lastSeen } ?? true
                devices[key] = DeviceRow(
                    info: newer ? device : known!.info,
                    firstSeen: min(known?.firstSeen ?? sample.start, sample.start),
                    lastSeen: max(known?.lastSeen ?? sample.end, sample.end))
            }
            if let item = Self.versioned(sample.uuid, sample.metadata) { versioned.append(item) }
        }
    }

    /// Number of changes (samples + sessions + people + deletions).
    var count: Int { samples.count + sessions.count + people.count + deleted.count }

    /// The sync identifier and version of a sample's or a session's metadata, if it has both.
    static func versioned(_ uuid: UUID, _ metadata: Metadata) -> Versioned? {
        guard let identifier = metadata[MetadataKey.syncIdentifier],
              let version = metadata[MetadataKey.syncVersion].flatMap({ Int64($0) }) else { return nil }
        return Versioned(uuid: uuid, identifier: identifier, version: version)
    }

    // MARK: - Columns

    struct SampleColumns: Sendable {
        var uuid: [UUID] = [], device: [Int32] = [], type: [String] = []
        var start: [Date] = [], end: [Date] = [], count: [Int32] = []
        var average: [Double] = [], minimum: [Double] = [], maximum: [Double] = [], mostRecent: [Double] = [], sum: [Double] = []
        var metadata: [String] = [], deviceInfo: [String] = [], syncIdentifier: [String] = [], syncVersion: [Int64] = []
        var anchor: [Int64] = [], contents: [[UInt8]] = []
    }

    /// Beat or heart-rate rows of the expanded tables.
    struct ExpandedColumns: Sendable {
        var time: [Date] = [], device: [Int32] = [], value: [Float] = [], gap: [Bool] = [], sample: [UUID] = []
        /// `heart_rate` only: each point's end (a beat has none).
        var end: [Date] = []
        var isEmpty: Bool { time.isEmpty }
    }

    /// The sample rows to insert, skipping `excluded` (samples the sync-version rule turned away).
    func sampleColumns(deviceIds: [DeviceKey: Int32], excluding excluded: Set<UUID>) -> SampleColumns {
        var c = SampleColumns()
        for stored in samples where !excluded.contains(stored.sample.uuid) {
            let s = stored.sample
            c.uuid.append(s.uuid)
            c.device.append(s.device.flatMap { deviceIds[DeviceKey($0)] } ?? 0)
            c.type.append(s.typeIdentifier)
            c.start.append(s.start)
            c.end.append(s.end)
            var aggregates = QuantityAggregates()
            switch s {
            case .quantity(let q):
                c.count.append(Int32(clamping: q.points.count))
                aggregates = q.aggregates
            case .heartbeatSeries(let h):
                c.count.append(Int32(clamping: h.beats.count))
            }
            c.average.append(aggregates.average ?? .nan)
            c.minimum.append(aggregates.minimum ?? .nan)
            c.maximum.append(aggregates.maximum ?? .nan)
            c.mostRecent.append(aggregates.mostRecent ?? .nan)
            c.sum.append(aggregates.sum ?? .nan)
            c.metadata.append(s.metadata.isEmpty ? "" : Self.json(s.metadata))
            c.deviceInfo.append(s.device.map(Self.json) ?? "")
            c.syncIdentifier.append(s.metadata[MetadataKey.syncIdentifier] ?? "")
            c.syncVersion.append(s.metadata[MetadataKey.syncVersion].flatMap { Int64($0) } ?? Int64.min)
            c.anchor.append(stored.anchor)
            c.contents.append(stored.contents)
        }
        return c
    }

    /// `beats` rows (value = RR in ms before the beat; NaN after a gap or at a series' first beat) and
    /// `heart_rate` rows (value = bpm at each point's start) of the samples in `uuids` (nil: all).
    func expandedColumns(deviceIds: [DeviceKey: Int32], only uuids: Set<UUID>?) -> (beats: ExpandedColumns, heartRate: ExpandedColumns) {
        var beats = ExpandedColumns(), heartRate = ExpandedColumns()
        for stored in samples where uuids?.contains(stored.sample.uuid) ?? true {
            let device = stored.sample.device.flatMap { deviceIds[DeviceKey($0)] } ?? 0
            switch stored.sample {
            case .heartbeatSeries(let h):
                var previous: Double?
                for beat in h.beats {
                    beats.time.append(h.start.addingTimeInterval(beat.offset))
                    beats.device.append(device)
                    let rr = beat.precededByGap ? nil : previous.map { (beat.offset - $0) * 1000 }
                    beats.value.append(rr.map { Float($0) } ?? .nan)
                    beats.gap.append(beat.precededByGap)
                    beats.sample.append(h.uuid)
                    previous = beat.offset
                }
            case .quantity(let q) where q.type == .heartRate:
                for point in q.points {
                    heartRate.time.append(point.start)
                    heartRate.end.append(point.end)
                    heartRate.device.append(device)
                    heartRate.value.append(Float(point.value))
                    heartRate.gap.append(false)
                    heartRate.sample.append(q.uuid)
                }
            case .quantity:
                break
            }
        }
        return (beats, heartRate)
    }

    static func json<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}
