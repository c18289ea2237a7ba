import HealthModel

/// Gap precision and recall of the heartbeat series as stored (finished), beside `TimelineTally`'s live count:
/// the stored series holds the beats live watchers got, in the same order, but a late decision (docs/INGEST.md,
/// "Late decisions") may have moved some of them and flagged the loss at its beat afterwards.
public struct StoredTally: Sendable, Hashable, GapScore {
    public var truePositives = 0
    public var falsePositives = 0
    public var missed = 0
    /// Unflagged stored intervals between consecutive true beats that differ from the delivered RR.
    public var inexact = 0
    /// Runs whose stored beats could not be paired with the live ones (another count): not scored.
    public var unpaired = 0

    public init() {}

    public mutating func add(_ other: StoredTally) {
        truePositives += other.truePositives
        falsePositives += other.falsePositives
        missed += other.missed
        inexact += other.inexact
        unpaired += other.unpaired
    }

    /// Scores the saved heartbeat series against `order`, the true beat of each beat emitted live (nil: invented)
    /// and whether it is an implied predecessor, with the rules `TimelineScore` applies to the live beats.
    static func score(order: [(beat: Int?, implied: Bool)], saved: [Sample], rr: [Int]) -> StoredTally {
        var tally = StoredTally()
        let series = saved.compactMap { sample -> HeartbeatSeriesSample? in
            if case .heartbeatSeries(let s) = sample { s } else { nil }
        }.sorted { $0.start < $1.start }
        let beats = series.flatMap { s in
            s.beats.map { (time: s.start.timeIntervalSince1970 + $0.offset, gap: $0.precededByGap) }
        }
        guard beats.count == order.count else {
            tally.unpaired = 1
            return tally
        }
        var previous: (beat: Int, time: Double)?
        for (entry, stored) in zip(order, beats) {
            guard let beat = entry.beat else { continue }
            if let previous, beat <= previous.beat {
                if stored.gap { tally.falsePositives += 1 }
                continue
            }
            let needsGap = entry.implied || previous.map { $0.beat != beat - 1 } ?? true
            switch (stored.gap, needsGap) {
            case (true, true): tally.truePositives += 1
            case (true, false): tally.falsePositives += 1
            case (false, true): tally.missed += 1
            case (false, false):
                if let previous, abs((stored.time - previous.time) * 1024 - Double(rr[beat])) > 0.01 { tally.inexact += 1 }
            }
            previous = (beat, stored.time)
        }
        return tally
    }
}
