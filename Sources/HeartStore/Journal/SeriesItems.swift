import Foundation
import HealthModel

/// The items of an open series as the journal's delta records handle them: its beats or its points, in order.
///
/// A delta record says "keep the first `keep` items of this series, then these": what a growing series needs,
/// since its builders only append — except that the last heart-rate point of a snapshot is the value still being
/// held (its end moves), and an energy increment at the same start replaces the last point. So the writer
/// rewrites from the last journaled item on, after checking that everything before it is unchanged
/// (`PrefixHash`: reads, no copy of the series and no encoding).
enum SeriesItems: Equatable {
    case beats([Beat])
    case points([QuantityPoint])

    init(_ sample: Sample) {
        switch sample {
        case .heartbeatSeries(let series): self = .beats(series.beats)
        case .quantity(let quantity): self = .points(quantity.points)
        }
    }

    var count: Int {
        switch self {
        case .beats(let beats): beats.count
        case .points(let points): points.count
        }
    }

    /// The series' blob (`contents`) of a checkpoint record of kind `kind` starting at `start`.
    static func decode(_ contents: [UInt8], kind: String, start: Date) throws(SeriesCodingError) -> SeriesItems {
        if kind == Sample.heartbeatSeriesIdentifier { return .beats(try HeartbeatSeriesCoding.decode(contents)) }
        return .points(try QuantitySeriesCoding.decode(contents, seriesStart: start))
    }

    /// The items from `index` on, encoded as a blob of their own (the series codec, relative to the series start).
    func encoded(from index: Int, seriesStart: Date) throws(SeriesCodingError) -> [UInt8] {
        switch self {
        case .beats(let beats): try HeartbeatSeriesCoding.encode(Array(beats[index...]))
        case .points(let points): try QuantitySeriesCoding.encode(Array(points[index...]), seriesStart: seriesStart)
        }
    }

    /// Keeps the first `keep` items and appends `tail` (of the same kind). False when they do not fit together.
    mutating func replaceTail(keeping keep: Int, with tail: SeriesItems) -> Bool {
        guard keep >= 0, keep <= count else { return false }
        switch (self, tail) {
        case (.beats(var beats), .beats(let more)):
            beats.removeLast(beats.count - keep)
            beats += more
            self = .beats(beats)
        case (.points(var points), .points(let more)):
            points.removeLast(points.count - keep)
            points += more
            self = .points(points)
        default:
            return false
        }
        return true
    }

    /// FNV-1a over the items `range` of `sample`, continuing from `hash`.
    static func hash(_ sample: Sample, _ range: Range<Int>, from hash: UInt64 = PrefixHash.seed) -> UInt64 {
        var h = hash
        switch sample {
        case .heartbeatSeries(let series):
            series.beats.withUnsafeBufferPointer { beats in
                for i in range {
                    h = PrefixHash.mix(h, beats[i].offset.bitPattern)
                    h = PrefixHash.mix(h, beats[i].precededByGap ? 1 : 0)
                }
            }
        case .quantity(let quantity):
            quantity.points.withUnsafeBufferPointer { points in
                for i in range {
                    h = PrefixHash.mix(h, points[i].value.bitPattern)
                    h = PrefixHash.mix(h, points[i].start.timeIntervalSinceReferenceDate.bitPattern)
                    h = PrefixHash.mix(h, points[i].end.timeIntervalSinceReferenceDate.bitPattern)
                }
            }
        }
        return h
    }

    static func count(_ sample: Sample) -> Int {
        switch sample {
        case .heartbeatSeries(let series): series.beats.count
        case .quantity(let quantity): quantity.points.count
        }
    }
}

/// A 64-bit FNV-1a over 64-bit words: enough to tell whether a snapshot's items before the journaled tail
/// are the ones journaled (a mismatch, or a collision's 2⁻⁶⁴, only means a full record instead of a delta).
enum PrefixHash {
    static let seed: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always) static func mix(_ hash: UInt64, _ word: UInt64) -> UInt64 {
        (hash ^ word) &* 0x0000_0100_0000_01B3
    }
}

/// What the journal last wrote of one series (since the journal was last emptied): enough to write the next
/// snapshot as a delta without holding the series itself (holding the builder's arrays would make every append
/// to them copy the whole series).
struct JournaledSeries {
    var kind: String
    var start: Date
    var metadata: Metadata
    var device: DeviceInfo?
    /// The items journaled, all but the last: the prefix a delta keeps, and its hash.
    var prefixCount: Int
    var prefixHash: UInt64

    init(_ sample: Sample) {
        kind = sample.typeIdentifier
        start = sample.start
        metadata = sample.metadata
        device = sample.device
        prefixCount = max(0, SeriesItems.count(sample) - 1)
        prefixHash = SeriesItems.hash(sample, 0..<prefixCount)
    }

    /// How many items of `sample` a delta may keep (the rest is rewritten), or nil when it needs a full record:
    /// another kind, start, metadata or device, or items before the journaled tail that changed.
    func keepable(in sample: Sample) -> Int? {
        guard sample.typeIdentifier == kind, sample.start == start, sample.metadata == metadata, sample.device == device,
              SeriesItems.count(sample) >= prefixCount,
              SeriesItems.hash(sample, 0..<prefixCount) == prefixHash else { return nil }
        return prefixCount
    }

    /// The state after a delta of `sample` that kept `keep` items was written.
    mutating func advance(to sample: Sample, kept keep: Int) {
        let count = SeriesItems.count(sample)
        let newPrefix = max(0, count - 1)
        prefixHash = newPrefix >= keep ? SeriesItems.hash(sample, keep..<newPrefix, from: prefixHash)
                                       : SeriesItems.hash(sample, 0..<newPrefix)
        prefixCount = newPrefix
    }
}
