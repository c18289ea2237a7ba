import Foundation

/// What one checkpoint hands the store of an open series: the whole series, or only what it appended since the
/// checkpoint before — so a checkpoint of a long series costs what the second added (a beat, a heart-rate point),
/// not the series' length.
public enum SeriesCheckpoint: Sendable, Hashable {
    /// The whole series as it would finish now (its first checkpoint, or after anything but an append: new
    /// metadata or device, a failed write).
    case full(Sample)
    /// What changed since the checkpoint before, which the store holds.
    case appended(SeriesAppend)

    public var uuid: UUID {
        switch self {
        case .full(let sample): sample.uuid
        case .appended(let append): append.uuid
        }
    }

    /// This checkpoint followed by `newer` (of the same series), as one: what a store that missed this one needs.
    /// Nil when `newer` does not follow it (it builds on another item count).
    public func followed(by newer: SeriesCheckpoint) -> SeriesCheckpoint? {
        switch (self, newer) {
        case (_, .full):
            return newer
        case (.full(let sample), .appended(let append)):
            return sample.applying(append).map(SeriesCheckpoint.full)
        case (.appended(let older), .appended(let append)):
            guard append.after == older.count else { return nil }
            var merged = append
            merged.after = older.after
            if append.keeping >= older.keeping {
                var items = older.items
                guard items.replaceTail(keeping: append.keeping - older.keeping, with: append.items) else { return nil }
                merged.keeping = older.keeping
                merged.items = items
            }
            return .appended(merged)
        }
    }
}

/// A series' change since its previous checkpoint: of the `after` items that checkpoint held, keep the first
/// `keeping` and append `items`; the series now ends at `end`. Appends are what a growing series does; the
/// items rewritten (`keeping < after`) are the held heart-rate value, whose end moves, and an energy increment
/// summed into the last point.
public struct SeriesAppend: Sendable, Hashable {
    public var uuid: UUID
    /// How many items the previous checkpoint held (the store checks it holds as many).
    public var after: Int
    public var keeping: Int
    public var items: SeriesItems
    public var end: Date

    public init(uuid: UUID, after: Int, keeping: Int, items: SeriesItems, end: Date) {
        self.uuid = uuid
        self.after = after
        self.keeping = keeping
        self.items = items
        self.end = end
    }

    /// How many items the series holds with this change applied.
    public var count: Int { keeping + items.count }
    /// Whether it changes nothing.
    public var isEmpty: Bool { keeping == after && items.count == 0 }
}

/// The items of a series: its beats or its points, in order.
public enum SeriesItems: Sendable, Hashable {
    case beats([Beat])
    case points([QuantityPoint])

    public init(_ sample: Sample) {
        switch sample {
        case .heartbeatSeries(let series): self = .beats(series.beats)
        case .quantity(let quantity): self = .points(quantity.points)
        }
    }

    public var count: Int {
        switch self {
        case .beats(let beats): beats.count
        case .points(let points): points.count
        }
    }

    /// Keeps the first `keep` items and appends `tail` (of the same kind). False when they do not fit together.
    public mutating func replaceTail(keeping keep: Int, with tail: SeriesItems) -> Bool {
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
}

extension Sample {
    /// This sample with `append` applied — what a whole checkpoint of the series would hold then (a quantity's
    /// aggregates recomputed) —, or nil when it does not fit (another series, another item count or kind).
    public func applying(_ append: SeriesAppend) -> Sample? {
        guard append.uuid == uuid else { return nil }
        var items = SeriesItems(self)
        guard items.count == append.after, items.replaceTail(keeping: append.keeping, with: append.items) else { return nil }
        switch (self, items) {
        case (.heartbeatSeries(var series), .beats(let beats)):
            series.beats = beats
            series.end = append.end
            return .heartbeatSeries(series)
        case (.quantity(var quantity), .points(let points)):
            quantity.points = points
            quantity.end = append.end
            quantity.aggregates = QuantityAggregates(points: points, style: quantity.type.aggregation)
            return .quantity(quantity)
        default:
            return nil
        }
    }
}
