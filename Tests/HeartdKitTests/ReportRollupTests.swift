import Foundation
import HealthModel
@testable import HeartQueries
import HeartStore
import Testing

/// A long range's report read from the store's hourly roll-ups gives the data the streamed path gives (every beat and
/// point read): trend buckets (heart-rate band, HRV, beats), days with resting heart rate, the span with data and the
/// range's statistics — on two devices with gaps, after a delete, on ranges starting and ending mid-hour or on the
/// hour, hourly and daily.
@Suite struct ReportRollupTests {
    static let t0 = Date(timeIntervalSince1970: 1_789_948_800) // a midnight UTC
    static let devices = [
        DeviceInfo(name: "Polar H10", manufacturer: "Polar Electro Oy", model: "H10", localIdentifier: "A0:9E:1A:00:00:01"),
        DeviceInfo(name: "Polar H10", manufacturer: "Polar Electro Oy", model: "H10", localIdentifier: "A0:9E:1A:00:00:02"),
    ]

    /// Four days: per device a series of ~2,700 beats (RR 600–1100 ms, an occasional gap) and ~40 minutes of 1 Hz
    /// heart rate every three hours, starting mid-hour and crossing hours' ends; some energy; one series and one
    /// heart-rate sample deleted.
    static func store() throws -> HeartDatabase {
        let db = try HeartDatabase.inMemory()
        var rng = SystemRandomNumberGenerator()
        var samples: [Sample] = []
        for (d, device) in devices.enumerated() {
            for block in 0..<32 {
                let start = t0.addingTimeInterval(Double(block) * 10_800 + 1_234.567 + Double(d) * 1_800)
                var offset = 0.0
                let beats = (0..<2_700).map { i -> Beat in
                    offset += Double(Int.random(in: 614...1126, using: &rng)) / 1024
                    return Beat(offset: offset, precededByGap: i == 0 || Int.random(in: 0..<300, using: &rng) == 0)
                }
                samples.append(.heartbeatSeries(HeartbeatSeriesSample(
                    start: start, end: start.addingTimeInterval(offset), beats: beats, device: device)))
                var value = 90.0
                let points = (0..<2_400).map { i -> QuantityPoint in
                    value = min(180, max(45, value + Double(Int.random(in: -3...3, using: &rng))))
                    let s = start.addingTimeInterval(Double(i) + 0.5)
                    return QuantityPoint(value: value, start: s, end: s.addingTimeInterval(1))
                }
                samples.append(.quantity(QuantitySample(
                    type: .heartRate, start: points[0].start, end: points.last!.end, points: points,
                    aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted), device: device)))
                if block % 4 == 1 {
                    let energy = (0..<30).map { i in
                        QuantityPoint(value: Double(i % 5) + 0.25, start: start.addingTimeInterval(Double(i) * 60),
                                      end: start.addingTimeInterval(Double(i + 1) * 60))
                    }
                    samples.append(.quantity(QuantitySample(
                        type: .activeEnergyBurned, start: energy[0].start, end: energy.last!.end, points: energy,
                        aggregates: QuantityAggregates(points: energy, style: .cumulative), device: device)))
                }
            }
        }
        _ = try db.save(samples)
        #expect(try db.delete(uuid: samples[12].uuid))
        #expect(try db.delete(uuid: samples[21].uuid))
        return db
    }

    /// Whether two values are equal, doubles and dates within 1e-9 (relative past 1).
    static func same(_ a: Any, _ b: Any, _ path: String, _ differences: inout [String]) {
        func close(_ x: Double, _ y: Double) -> Bool { x == y || abs(x - y) <= 1e-9 * max(1, abs(x), abs(y)) }
        if let x = a as? Double, let y = b as? Double {
            if !close(x, y) { differences.append("\(path): \(x) vs \(y)") }
            return
        }
        if let x = a as? Date, let y = b as? Date {
            if !close(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate) { differences.append("\(path): \(x) vs \(y)") }
            return
        }
        let ma = Mirror(reflecting: a), mb = Mirror(reflecting: b)
        if ma.displayStyle == .optional, ma.children.isEmpty != mb.children.isEmpty {
            differences.append("\(path): \(a) vs \(b)")
            return
        }
        guard !ma.children.isEmpty else {
            if "\(a)" != "\(b)" { differences.append("\(path): \(a) vs \(b)") }
            return
        }
        guard ma.children.count == mb.children.count else {
            differences.append("\(path): \(ma.children.count) vs \(mb.children.count) children")
            return
        }
        for (i, (x, y)) in zip(ma.children, mb.children).enumerated() {
            same(x.value, y.value, path + "." + (x.label ?? "\(i)"), &differences)
        }
    }

    static func expectSame(_ queries: StoreQueries, _ scope: ReportScope, _ stage: String) throws {
        let now = t0.addingTimeInterval(30 * 86_400)
        let rolled = try queries.reportData(scope, now: now)
        let streamed = try queries.reportData(scope, now: now, rollups: false)
        let trend = try #require(rolled.trend, "\(stage): no trend")
        #expect(trend.buckets.contains { $0.hrv != nil && $0.beats > 0 } && trend.days.contains { $0.restingHeartRate != nil },
                "\(stage): an empty trend")
        var differences: [String] = []
        same(rolled.trend as Any, streamed.trend as Any, "trend", &differences)
        same(rolled.statistics, streamed.statistics, "statistics", &differences)
        #expect(rolled.devices.map(\.address) == streamed.devices.map(\.address), "\(stage)")
        #expect(differences.isEmpty, "\(stage): \(differences.prefix(8))")
    }

    @Test func theRolledUpTrendIsTheStreamedOne() throws {
        let queries = StoreQueries(database: try Self.store())
        let day = 86_400.0
        // The roll-up path reads the store's hourly HRV sums (the comparisons below would hold trivially otherwise).
        var rows = 0
        #expect(try queries.database.heartbeatHours(from: Self.t0, to: Self.t0.addingTimeInterval(4 * day),
                                                    hours: (Self.t0, Self.t0.addingTimeInterval(4 * day))) { _, _ in rows += 1 })
        #expect(rows > 50)
        // Mid-hour at both ends, hourly buckets.
        try Self.expectSame(queries, .range(from: Self.t0.addingTimeInterval(5_000.25), to: Self.t0.addingTimeInterval(3.5 * day + 777.5),
                                            device: nil), "mid-hour")
        // On the hour, one device.
        try Self.expectSame(queries, .range(from: Self.t0.addingTimeInterval(3_600), to: Self.t0.addingTimeInterval(3 * day),
                                            device: Self.devices[1].localIdentifier), "one device")
        // Daily buckets over empty days around the data.
        try Self.expectSame(queries, .range(from: Self.t0.addingTimeInterval(-10 * day + 1_000), to: Self.t0.addingTimeInterval(6 * day),
                                            device: nil), "daily")
    }

    /// Time with gaps: the union of two devices' covered intervals, the second's arriving after the first's.
    @Test func coveredTimeIsTheUnionWhateverTheOrder() {
        var covered = CoveredTime()
        for (a, b) in [(0.0, 1.0), (1.0, 2.0), (5.0, 6.0), (8.0, 9.0), (1.5, 5.5), (5.5, 7.0), (20.0, 21.0), (-3.0, -2.0)] {
            covered.add(a, b)
        }
        #expect(covered.length == 7 + 1 + 1 + 1)
    }
}
