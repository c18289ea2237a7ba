import Foundation
import HealthModel

/// The items of an open series as the journal's delta records handle them (`SeriesItems`, HealthModel): decoded
/// from and encoded to the series codecs.
///
/// A delta record says "keep the first `keep` items of this series, then these": what a growing series needs,
/// since its builders only append — except that the last heart-rate point of a snapshot is the value still being
/// held (its end moves), and an energy increment at the same start replaces the last point. The ingest side knows
/// which items it appended or rewrote since its previous checkpoint and hands over only those (`SeriesAppend`):
/// the writer neither holds nor reads the series to find them.
extension SeriesItems {
    /// The series' blob (`contents`) of a checkpoint record of kind `kind` starting at `start`.
    static func decode(_ contents: [UInt8], kind: String, start: Date) throws(SeriesCodingError) -> SeriesItems {
        if kind == Sample.heartbeatSeriesIdentifier { return .beats(try HeartbeatSeriesCoding.decode(contents)) }
        return .points(try QuantitySeriesCoding.decode(contents, seriesStart: start))
    }

    /// The items from `index` on, encoded as a blob of their own (the series codec, relative to the series start).
    func encoded(from index: Int = 0, seriesStart: Date) throws(SeriesCodingError) -> [UInt8] {
        switch self {
        case .beats(let beats):
            var w = ByteWriter(capacity: 2 + (beats.count - index) * 2 + 8)
            try HeartbeatSeriesCoding.encode(beats[index...], into: &w)
            return w.bytes
        case .points(let points):
            var w = ByteWriter(capacity: 2 + (points.count - index) * 4 + 8)
            try QuantitySeriesCoding.encode(points[index...], seriesStart: seriesStart, into: &w)
            return w.bytes
        }
    }

    /// Appends the items' blob to `w` (what `encoded(seriesStart:)` returns, without an array of its own).
    func encode(seriesStart: Date, into w: inout ByteWriter) throws(SeriesCodingError) {
        switch self {
        case .beats(let beats): try HeartbeatSeriesCoding.encode(beats[...], into: &w)
        case .points(let points): try QuantitySeriesCoding.encode(points[...], seriesStart: seriesStart, into: &w)
        }
    }

    /// Whether these items belong in a series of kind `kind` (a checkpoint record's `kind`).
    func fits(kind: String) -> Bool {
        switch self {
        case .beats: kind == Sample.heartbeatSeriesIdentifier
        case .points: kind != Sample.heartbeatSeriesIdentifier
        }
    }
}

/// What the journal last wrote of one series (since the journal was last emptied): enough to check that the next
/// `SeriesAppend` follows it (the item count) and to encode its items (the start), without holding the series.
struct JournaledSeries {
    var kind: String
    var start: Date
    /// The items the series holds as journaled.
    var count: Int

    init(_ record: CheckpointRecord, count: Int) {
        kind = record.kind
        start = record.start
        self.count = count
    }

    /// Whether `append` builds on this state: the same item count and kind.
    func accepts(_ append: SeriesAppend) -> Bool {
        append.after == count && append.keeping <= count && append.items.fits(kind: kind)
    }
}
