import HeartStore
import PostgresNIO

/// A page of changes laid out for its transaction ahead of it: the batch, and its expanded `beats` and
/// `heart_rate` rows already encoded as the statements' arrays — the client's share of a batch, which
/// `SyncRunner` does for the next page while the server writes the current one.
///
/// The central device ids are only known inside the transaction (the devices upsert), so the rows carry each
/// device as its 1-based ordinal in `deviceKeys` (0: none) and the statement maps ordinals to ids with one more
/// array (`($6::int4[])[d]`; index 0 is NULL in PostgreSQL).
public struct PreparedBatch: Sendable {
    let batch: CentralBatch
    let deviceKeys: [CentralBatch.DeviceKey]
    /// The expanded rows of every sample of the batch ($1 … $5 of `CentralBatchWriter.expandedInsert`; $6 the
    /// heart-rate points' ends).
    let beats: PostgresBindings
    let heartRate: PostgresBindings
    let beatCount: Int
    let heartRateCount: Int

    public init(_ changes: ReplicaChanges, from anchor: Int64) {
        batch = CentralBatch(changes, from: anchor)
        deviceKeys = Array(batch.devices.keys)
        let expanded = batch.expandedColumns(deviceIds: Self.ordinals(deviceKeys), only: nil)
        beats = Self.bindings(expanded.beats)
        heartRate = Self.bindings(expanded.heartRate)
        beatCount = expanded.beats.time.count
        heartRateCount = expanded.heartRate.time.count
    }

    /// Changes in the batch (samples + sessions + deletions).
    public var count: Int { batch.count }
    /// The anchor the batch starts after and the one it delivers up to.
    public var fromAnchor: Int64 { batch.fromAnchor }
    public var toAnchor: Int64 { batch.toAnchor }

    static func ordinals(_ keys: [CentralBatch.DeviceKey]) -> [CentralBatch.DeviceKey: Int32] {
        Dictionary(uniqueKeysWithValues: keys.enumerated().map { ($1, Int32($0 + 1)) })
    }

    static func bindings(_ rows: CentralBatch.ExpandedColumns) -> PostgresBindings {
        var binds = PostgresBindings(capacity: 6)
        binds.append(BinaryArray(rows.time))
        binds.append(BinaryArray(rows.device))
        binds.append(BinaryArray(rows.value))
        binds.append(BinaryArray(rows.gap))
        binds.append(BinaryArray(rows.sample))
        if !rows.end.isEmpty { binds.append(BinaryArray(rows.end)) }
        return binds
    }
}
