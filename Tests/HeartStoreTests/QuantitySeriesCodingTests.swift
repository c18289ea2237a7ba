import Foundation
import HealthModel
@testable import HeartStore
import SeededRandom
import Testing

@Suite struct QuantitySeriesCodingTests {
    let start = Fixtures.start

    func roundTrip(_ points: [QuantityPoint]) throws -> [QuantityPoint] {
        try QuantitySeriesCoding.decode(try QuantitySeriesCoding.encode(points, seriesStart: start), seriesStart: start)
    }

    @Test func heartRatePointsRoundTripExactly() throws {
        for seed: UInt64 in 1...10 {
            let points = Fixtures.heartRatePoints(count: 900, seed: seed)
            #expect(try roundTrip(points) == points)
        }
    }

    @Test func everyEndKindAndValueKindRoundTrips() throws {
        func at(_ ms: Int) -> Date { start.addingTimeInterval(Double(ms) / 1000) }
        let points = [
            QuantityPoint(value: 72, start: at(0), end: at(0)),            // instant
            QuantityPoint(value: 73, start: at(1000), end: at(2000)),      // ends at next start
            QuantityPoint(value: 48.25, start: at(2000), end: at(2500)),   // non-integral, explicit
            QuantityPoint(value: -3, start: at(3000), end: at(3500)),      // negative, same duration
            QuantityPoint(value: 1e300, start: at(3000), end: at(2000)),   // huge, same start, negative duration
            QuantityPoint(value: -0.0, start: at(4001), end: at(4002)),
            QuantityPoint(value: .infinity, start: at(5000), end: at(5000)),
            QuantityPoint(value: 9_007_199_254_740_994, start: at(-500), end: at(86_400_000)), // before the start
        ]
        let decoded = try roundTrip(points)
        #expect(decoded.count == points.count)
        for (a, b) in zip(points, decoded) {
            #expect(a.value == b.value)
            #expect(a.value.sign == b.value.sign)
            #expect(a.start == b.start)
            #expect(a.end == b.end)
        }
        let nan = try roundTrip([QuantityPoint(value: .nan, start: at(0), end: at(0))])
        #expect(nan.first?.value.isNaN == true)
    }

    @Test func datesAreKeptToTheMillisecond() throws {
        var rng = SplitMix64(seed: 5)
        var t = 0.0
        let points = (0..<300).map { _ in
            t += Double.random(in: 0.2...2, using: &rng)
            return QuantityPoint(value: Double(Int.random(in: 40...200, using: &rng)), start: start.addingTimeInterval(t),
                                 end: start.addingTimeInterval(t + Double.random(in: 0...1, using: &rng)))
        }
        let decoded = try roundTrip(points)
        #expect(decoded.count == points.count)
        for (a, b) in zip(points, decoded) {
            #expect(a.value == b.value)
            #expect(abs(a.start.timeIntervalSince(b.start)) <= 0.0005 + 1e-9)
            #expect(abs(a.end.timeIntervalSince(b.end)) <= 0.0005 + 1e-9)
        }
    }

    @Test func oneHertzHeartRateTakesAtMostFourBytesPerPoint() throws {
        let points = Fixtures.heartRatePoints(count: 1000, seed: 11)
        let bytes = try QuantitySeriesCoding.encode(points, seriesStart: start)
        #expect(Double(bytes.count) / Double(points.count) <= 4)
        // Steady 1 Hz with small value changes: one byte of value change, one byte of step change.
        #expect(bytes.count <= 2 * points.count + 8)
        // Instant points (end == start) cost the same.
        let instants = points.map { QuantityPoint(value: $0.value, start: $0.start, end: $0.start) }
        #expect(try QuantitySeriesCoding.encode(instants, seriesStart: start).count <= 2 * instants.count + 8)
    }

    @Test func jitteredArrivalTimesStayCompactAndExact() throws {
        var rng = SplitMix64(seed: 17)
        var value = 100.0
        let points = (0..<1000).map { i in
            value = min(180, max(60, value + Double(Int.random(in: -10...10, using: &rng))))
            let s = start.addingTimeInterval(Double(i * 1000 + Int.random(in: -60...60, using: &rng)) / 1000)
            return QuantityPoint(value: value, start: s, end: s)
        }
        let bytes = try QuantitySeriesCoding.encode(points, seriesStart: start)
        #expect(Double(bytes.count) / Double(points.count) <= 3)
        #expect(try QuantitySeriesCoding.decode(bytes, seriesStart: start) == points)
    }

    @Test func unencodableDatesThrow() {
        let far = QuantityPoint(value: 1, start: Date.distantFuture.addingTimeInterval(1e300), end: start)
        #expect(throws: SeriesCodingError.self) { try QuantitySeriesCoding.encode([far], seriesStart: start) }
    }

    @Test func malformedBlobsThrowTypedErrors() throws {
        let valid = try QuantitySeriesCoding.encode(Fixtures.heartRatePoints(count: 30, seed: 1), seriesStart: start)
        func code(_ bytes: [UInt8]) -> SeriesCodingError.Code? {
            do { _ = try QuantitySeriesCoding.decode(bytes, seriesStart: start); return nil } catch { return error.code }
        }
        #expect(code([]) == .truncated)
        #expect(code([2, 0]) == .unknownVersion)
        #expect(code([1, 1, 0x05, 0]) == .truncated)       // double announced, missing
        #expect(code([1, 1, 0x01, 0]) == .inconsistent)    // last point ends at a missing next point
        #expect(code([1, 1, 0x0C, 1, 2, 3, 4, 5, 6, 7, 8, 0]) == .inconsistent) // payload and double
        #expect(code(valid + [0]) == .inconsistent)
        for cut in 0..<valid.count {
            #expect(code(Array(valid.prefix(cut))) != nil)
        }
    }

    @Test func randomGarbageNeverTraps() {
        var rng = SplitMix64(seed: 123)
        for _ in 0..<5000 {
            var bytes = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if !bytes.isEmpty && Bool.random(using: &rng) { bytes[0] = QuantitySeriesCoding.version }
            _ = try? QuantitySeriesCoding.decode(bytes, seriesStart: start)
        }
    }
}
