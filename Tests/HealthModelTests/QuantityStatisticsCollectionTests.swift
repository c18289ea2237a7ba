import Foundation
import HealthModel
import SeededRandom
import Testing

@Suite struct QuantityStatisticsCollectionTests {
    @Test func bucketsAlignToTheAnchorAndClipToTheRange() throws {
        // Anchor at 0, 10 s buckets, range [5, 32): buckets [5,10) [10,20) [20,30) [30,32).
        let points = [point(60, 0, 12), point(80, 25, 26)]
        let c = try QuantityStatisticsCollection(points: points, style: .discreteTemporallyWeighted, anchor: at(0),
                                                 interval: 10, from: at(5), to: at(32))
        #expect(c.buckets.map(\.start) == [at(5), at(10), at(20), at(30)])
        #expect(c.buckets.map(\.end) == [at(10), at(20), at(30), at(32)])
        #expect(c.buckets.map(\.count) == [1, 1, 1, 0])
        #expect(c.buckets.map(\.duration) == [5, 2, 1, 0])
        #expect(c.buckets[3].average == nil)
        #expect(c.statistics(for: at(11))?.start == at(10))
        #expect(c.statistics(for: at(5))?.start == at(5))
        #expect(c.statistics(for: at(31.9))?.end == at(32))
        #expect(c.statistics(for: at(32)) == nil)
        #expect(c.statistics(for: at(4.9)) == nil)
    }

    @Test func anchorAfterTheRangeStillAligns() throws {
        let c = try QuantityStatisticsCollection(points: [], style: .cumulative, anchor: at(1000), interval: 60,
                                                 from: at(0), to: at(130))
        // Buckets start at 1000 − 17·60 = −20, so [0,40) [40,100) [100,130).
        #expect(c.buckets.map(\.start) == [at(0), at(40), at(100)])
        #expect(c.buckets.allSatisfy { $0.count == 0 && $0.sum == nil })
    }

    @Test func rangeOnBucketBoundaries() throws {
        let c = try QuantityStatisticsCollection(points: [point(1, 59, 61)], style: .cumulative, anchor: at(0),
                                                 interval: 60, from: at(0), to: at(120))
        #expect(c.buckets.count == 2)
        #expect(c.buckets.map(\.sum) == [0.5, 0.5])
        let empty = try QuantityStatisticsCollection(points: [], style: .cumulative, anchor: at(0), interval: 60,
                                                     from: at(60), to: at(60))
        #expect(empty.buckets.isEmpty)
        #expect(empty.statistics(for: at(60)) == nil)
    }

    @Test func invalidArguments() {
        func code(_ interval: TimeInterval, _ from: Date, _ to: Date) -> StatisticsError.Code? {
            do {
                _ = try QuantityStatisticsCollection(points: [], style: .cumulative, anchor: t0, interval: interval, from: from, to: to)
                return nil
            } catch { return error.code }
        }
        #expect(code(0, at(0), at(1)) == .invalidInterval)
        #expect(code(-1, at(0), at(1)) == .invalidInterval)
        #expect(code(.nan, at(0), at(1)) == .invalidInterval)
        #expect(code(.infinity, at(0), at(1)) == .invalidInterval)
        #expect(code(1, at(1), at(0)) == .invalidRange)
        #expect(code(1, .distantPast, .distantFuture) == .tooManyBuckets)
        #expect(code(1e-300, at(0), at(1)) == .invalidInterval)
        #expect(code(0.001, at(0), at(1)) == nil)
        #expect(code(0.001, at(0), at(1001)) == .tooManyBuckets)
        #expect(code(1, Date(timeIntervalSinceReferenceDate: -.infinity), at(0)) == .invalidRange)
        #expect(code(60, .distantPast, .distantFuture) == .tooManyBuckets)
        #expect(code(86_400 * 365, .distantPast, .distantFuture) == nil)
    }

    @Test(arguments: [AggregationStyle.cumulative, .discreteArithmetic, .discreteTemporallyWeighted])
    func randomBucketsMatchReference(_ style: AggregationStyle) throws {
        var rng = SplitMix64(seed: 2024)
        for _ in 0..<150 {
            let points = randomPoints(count: Int.random(in: 0...40, using: &rng), using: &rng)
            let anchor = Double(Int.random(in: -20...20, using: &rng)) / 2
            let interval = [0.5, 1, 2.5, 7, 10, 33][Int.random(in: 0..<6, using: &rng)]
            let from = Double(Int.random(in: -10...90, using: &rng)) / 2
            let to = from + Double(Int.random(in: 0...80, using: &rng)) / 2
            let c = try QuantityStatisticsCollection(points: points, style: style, anchor: at(anchor), interval: interval,
                                                     from: at(from), to: at(to))
            // Buckets tile [from, to) exactly, each aligned to the anchor grid.
            #expect(c.buckets.first?.start ?? at(to) == at(from))
            #expect(c.buckets.last?.end ?? at(from) == at(to))
            #expect(zip(c.buckets, c.buckets.dropFirst()).allSatisfy { $0.end == $1.start })
            for bucket in c.buckets.dropFirst() {
                let k = (bucket.start.timeIntervalSince(at(anchor)) / interval)
                #expect(abs(k - k.rounded()) < 1e-9)
            }
            for bucket in c.buckets {
                #expect(matches(bucket, referenceStatistics(points, style, bucket.start, bucket.end)))
            }
            if style == .cumulative {
                // Pro-rata sums over the buckets add up to the sum over the whole range.
                let whole = try QuantityStatistics(points: points, style: style, from: at(from), to: at(to))
                #expect(close(c.buckets.compactMap(\.sum).reduce(0, +), whole.sum ?? 0, 1e-9))
            }
        }
    }

    /// A day of 1 Hz heart rate in hourly buckets (debug build; the release measurement for 30 days is in the
    /// final report). Checks the result, not the time.
    @Test func oneDayOfOneHertzPoints() throws {
        let n = 86_400
        var points: [QuantityPoint] = []
        points.reserveCapacity(n)
        for i in 0..<n { points.append(point(Double(60 + i % 60), Double(i), Double(i + 1))) }
        let c = try QuantityStatisticsCollection(points: points, style: .discreteTemporallyWeighted, anchor: at(0),
                                                 interval: 3600, from: at(0), to: at(Double(n)))
        #expect(c.buckets.count == 24)
        #expect(c.buckets.allSatisfy { $0.count == 3600 && $0.duration == 3600 && close($0.average, 89.5) })
        #expect(c.buckets.last?.mostRecent == 119)
    }
}
