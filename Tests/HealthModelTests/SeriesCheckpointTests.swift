import Foundation
import Testing
import HealthModel

/// `SeriesCheckpoint`: a change applied to a series gives what a whole checkpoint would, and two checkpoints merged
/// (what the store writer does with the ones waiting) give what both applied in turn would.
@Suite struct SeriesCheckpointTests {
    static let uuid = UUID()

    /// A heart-rate series of values 0..<count, the last one held (ending `held` seconds after its start).
    static func series(_ count: Int, held: Double = 0.25) -> Sample {
        var points: [QuantityPoint] = []
        for i in 0..<count {
            let second = Double(i)
            points.append(QuantityPoint(value: 60 + second, start: at(second), end: at(second + 1)))
        }
        points[count - 1].end = at(Double(count - 1) + held)
        return .quantity(QuantitySample(uuid: uuid, type: .heartRate, start: t0, end: points[count - 1].end, points: points,
                                        aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted),
                                        device: nil))
    }

    /// The change from `series(from)` to `series(to)`: the held value rewritten, the new ones appended.
    static func change(from: Int, to: Int) -> SeriesCheckpoint {
        guard case .quantity(let q) = series(to) else { fatalError() }
        return .appended(SeriesAppend(uuid: uuid, after: from, keeping: from - 1, items: .points(Array(q.points[(from - 1)...])),
                                      end: q.end))
    }

    @Test func aChangeAppliedGivesTheWholeSeries() throws {
        guard case .appended(let change) = Self.change(from: 5, to: 8) else { return }
        #expect(Self.series(5).applying(change) == Self.series(8))
        #expect(Self.series(4).applying(change) == nil, "built on another item count")
    }

    @Test func mergedCheckpointsGiveWhatBothAppliedInTurnWould() throws {
        // Two appends; an append after a whole one; a whole one after anything.
        let merged = try #require(Self.change(from: 3, to: 5).followed(by: Self.change(from: 5, to: 9)))
        guard case .appended(let both) = merged else {
            Issue.record("two appends merge into one append: \(merged)")
            return
        }
        #expect(both.after == 3 && both.keeping == 2)
        #expect(Self.series(3).applying(both) == Self.series(9))
        #expect(SeriesCheckpoint.full(Self.series(5)).followed(by: Self.change(from: 5, to: 6)) == .full(Self.series(6)))
        #expect(Self.change(from: 3, to: 5).followed(by: .full(Self.series(7))) == .full(Self.series(7)))
        // The newer one keeps fewer items than the older one did: it alone says what follows them.
        guard case .quantity(let q) = Self.series(6) else { return }
        let rewrite = SeriesCheckpoint.appended(SeriesAppend(uuid: Self.uuid, after: 5, keeping: 1,
                                                             items: .points(Array(q.points[1...])), end: q.end))
        guard case .appended(let shorter)? = Self.change(from: 3, to: 5).followed(by: rewrite) else {
            Issue.record("no merge")
            return
        }
        #expect(Self.series(3).applying(shorter) == Self.series(6))
        #expect(Self.change(from: 3, to: 5).followed(by: Self.change(from: 6, to: 7)) == nil, "does not follow")
    }
}
