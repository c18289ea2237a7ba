import Foundation
import HealthModel
import SeededRandom
import Testing

/// The rules of `QuantityStatistics`, written directly (O(points) per range) as a reference.
func referenceStatistics(_ points: [QuantityPoint], _ style: AggregationStyle, _ from: Date, _ to: Date) -> QuantityStatistics {
    let lo = from.timeIntervalSinceReferenceDate, hi = to.timeIntervalSinceReferenceDate
    var counted: [(p: QuantityPoint, overlap: Double, fraction: Double, order: Int)] = []
    for (i, p) in points.enumerated() {
        let s = p.start.timeIntervalSinceReferenceDate, e = max(p.end.timeIntervalSinceReferenceDate, s)
        if e == s {
            if s >= lo && s < hi { counted.append((p, 0, 1, i)) }
        } else {
            let overlap = min(e, hi) - max(s, lo)
            if overlap > 0 { counted.append((p, overlap, overlap / (e - s), i)) }
        }
    }
    var r = QuantityStatistics(start: from, end: to, count: counted.count, duration: counted.map(\.overlap).reduce(0, +))
    guard !counted.isEmpty else { return r }
    if style == .cumulative {
        r.sum = counted.map { $0.p.value * $0.fraction }.reduce(0, +)
        return r
    }
    let weights = counted.map(\.overlap).reduce(0, +)
    r.average = style == .discreteTemporallyWeighted && weights > 0
        ? counted.map { $0.p.value * $0.overlap }.reduce(0, +) / weights
        : counted.map(\.p.value).reduce(0, +) / Double(counted.count)
    r.minimum = counted.map(\.p.value).min()
    r.maximum = counted.map(\.p.value).max()
    let latest = counted.max { ($0.p.start, $0.order) < ($1.p.start, $1.order) }
    r.mostRecent = latest?.p.value
    r.mostRecentDate = latest?.p.start
    return r
}

func matches(_ a: QuantityStatistics, _ b: QuantityStatistics) -> Bool {
    a.count == b.count && a.start == b.start && a.end == b.end && close(a.average, b.average) && a.minimum == b.minimum
        && a.maximum == b.maximum && a.mostRecent == b.mostRecent && a.mostRecentDate == b.mostRecentDate
        && close(a.sum, b.sum) && close(a.duration, b.duration)
}

@Suite struct QuantityStatisticsTests {
    @Test func temporallyWeightedUsesOnlyTheOverlap() throws {
        // 60 bpm over [0, 10), 120 bpm over [10, 20); range [5, 12): 5 s of 60 and 2 s of 120.
        let points = [point(60, 0, 10), point(120, 10, 20)]
        let s = try QuantityStatistics(points: points, style: .discreteTemporallyWeighted, from: at(5), to: at(12))
        #expect(s.count == 2)
        #expect(close(s.average, (60 * 5 + 120 * 2) / 7.0))
        #expect(s.minimum == 60 && s.maximum == 120)
        #expect(s.mostRecent == 120 && s.mostRecentDate == at(10))
        #expect(close(s.duration, 7))
        #expect(s.sum == nil)
    }

    @Test func instantaneousPointsWeighNothingUnlessAlone() throws {
        let mixed = [point(60, 0, 10), point(200, 5, 5)]
        let s = try QuantityStatistics(points: mixed, style: .discreteTemporallyWeighted, from: at(0), to: at(10))
        #expect(s.count == 2)
        #expect(s.average == 60)
        #expect(s.maximum == 200)
        let alone = [point(60, 1, 1), point(90, 2, 2), point(300, 10, 10)]
        let t = try QuantityStatistics(points: alone, style: .discreteTemporallyWeighted, from: at(0), to: at(10))
        #expect(t.count == 2)   // the point at 10 is outside [0, 10)
        #expect(t.average == 75)
        #expect(t.duration == 0)
    }

    @Test func arithmeticIgnoresDurations() throws {
        let points = [point(10, 0, 100), point(20, 100, 101)]
        let s = try QuantityStatistics(points: points, style: .discreteArithmetic, from: at(0), to: at(200))
        #expect(s.average == 15)
    }

    @Test func cumulativeIsProRata() throws {
        // 6 kJ over [0, 60): the range [30, 50) takes a third; 1 kJ at instant 40 counts whole; one at 50 does not.
        let points = [point(6, 0, 60), point(1, 40, 40), point(5, 50, 50)]
        let s = try QuantityStatistics(points: points, style: .cumulative, from: at(30), to: at(50))
        #expect(s.count == 2)
        #expect(close(s.sum, 6.0 / 3 + 1))
        #expect(close(s.duration, 20))
        #expect(s.average == nil && s.minimum == nil && s.mostRecent == nil)
    }

    @Test func halfOpenBoundaries() throws {
        let points = [point(1, 0, 10), point(2, 20, 30), point(3, 10, 10)]
        // A point ending exactly at `from` or starting exactly at `to` does not count.
        let s = try QuantityStatistics(points: points, style: .cumulative, from: at(10), to: at(20))
        #expect(s.count == 1)
        #expect(s.sum == 3)
    }

    @Test func emptyAndInvalidRanges() throws {
        let points = [point(1, 0, 10)]
        let empty = try QuantityStatistics(points: points, style: .discreteTemporallyWeighted, from: at(100), to: at(200))
        #expect(empty.isEmpty)
        #expect(empty == QuantityStatistics(start: at(100), end: at(200)))
        #expect(try QuantityStatistics(points: points, style: .cumulative, from: at(5), to: at(5)).count == 0)
        #expect { try QuantityStatistics(points: points, style: .cumulative, from: at(5), to: at(4)) } throws: {
            ($0 as? StatisticsError)?.code == .invalidRange
        }
        #expect(try QuantityStatistics(points: [], style: .cumulative, from: at(0), to: at(1)).count == 0)
    }

    @Test func shortRangesBelowOneSecond() throws {
        let points = [point(60, 0, 1), point(90, 1, 2)]
        let s = try QuantityStatistics(points: points, style: .discreteTemporallyWeighted, from: at(0.75), to: at(1.25))
        #expect(s.count == 2)
        #expect(close(s.average, 75))
        #expect(s.start == at(0.75) && s.end == at(1.25))
    }

    @Test func extremeRangesDoNotTrap() throws {
        let points = [point(1, 0, 10), QuantityPoint(value: 2, start: .distantPast, end: .distantFuture)]
        let s = try QuantityStatistics(points: points, style: .cumulative, from: .distantPast, to: .distantFuture)
        #expect(s.count == 2)
        #expect(close(s.sum, 3))
        let huge = try QuantityStatistics(points: points, style: .discreteArithmetic,
                                          from: Date(timeIntervalSinceReferenceDate: -1e307),
                                          to: Date(timeIntervalSinceReferenceDate: 1e307))
        #expect(huge.count == 2)
    }

    @Test func unsortedInputGivesTheSameResult() throws {
        let sorted = [point(1, 0, 1), point(2, 1, 2), point(3, 1, 3), point(4, 2, 2)]
        let a = try QuantityStatistics(points: sorted, style: .discreteTemporallyWeighted, from: at(0), to: at(5))
        let b = try QuantityStatistics(points: sorted.reversed(), style: .discreteTemporallyWeighted, from: at(0), to: at(5))
        #expect(a.average == b.average && a.count == b.count && a.mostRecentDate == b.mostRecentDate)
        #expect(a.mostRecent == 4)
    }

    @Test func mostRecentTieKeepsInputOrder() throws {
        let points = [point(1, 5, 6), point(2, 5, 7)]
        let s = try QuantityStatistics(points: points, style: .discreteArithmetic, from: at(0), to: at(10))
        #expect(s.mostRecent == 2)
        #expect(s.mostRecent == QuantityAggregates(points: points, style: .discreteArithmetic).mostRecent)
    }

    @Test func wholeRangeMatchesSampleAggregates() throws {
        var rng = SplitMix64(seed: 3)
        var b = QuantitySeriesBuilder(type: .heartRate, start: t0, device: nil)
        var start = 0.0
        for _ in 0..<500 {
            let length = Double(Int.random(in: 0...3, using: &rng))
            try b.insert(Double.random(in: 40...200, using: &rng), start: at(start), end: at(start + length))
            start += max(length, 0.5)
        }
        let finished = b.finish()
        let sample = try #require(finished)
        let s = try QuantityStatistics(points: sample.points, style: .discreteTemporallyWeighted, from: sample.start,
                                       to: sample.end.addingTimeInterval(1))
        #expect(s.count == sample.count)
        #expect(close(s.average, sample.aggregates.average))
        #expect(s.minimum == sample.aggregates.minimum && s.maximum == sample.aggregates.maximum)
        #expect(s.mostRecent == sample.aggregates.mostRecent)
    }

    @Test(arguments: [AggregationStyle.cumulative, .discreteArithmetic, .discreteTemporallyWeighted])
    func randomRangesMatchReference(_ style: AggregationStyle) throws {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<300 {
            let points = randomPoints(count: Int.random(in: 0...30, using: &rng), using: &rng)
            let a = Double(Int.random(in: -10...110, using: &rng)) / 2
            let b = a + Double(Int.random(in: 0...60, using: &rng)) / 2
            let s = try QuantityStatistics(points: points, style: style, from: at(a), to: at(b))
            #expect(matches(s, referenceStatistics(points, style, at(a), at(b))), "range \(a)–\(b)")
        }
    }
}

/// Points on a half-second grid (so boundaries coincide often), overlapping, some instantaneous, any order.
func randomPoints(count: Int, using rng: inout SplitMix64) -> [QuantityPoint] {
    (0..<count).map { _ in
        let s = Double(Int.random(in: 0...200, using: &rng)) / 2
        let length = Bool.random(using: &rng) ? 0 : Double(Int.random(in: 1...30, using: &rng)) / 2
        return point(Double(Int.random(in: 1...200, using: &rng)), s, s + length)
    }
}
