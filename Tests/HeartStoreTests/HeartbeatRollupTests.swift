import Foundation
import GRDB
import HealthModel
import Testing
@testable import HeartStore

/// `hrv_hourly`: the hourly sums of the series `forEachHeartbeatSeries` would stream give HRV's time domain as the beats
/// give it (`HRVMetrics(segments:)`, each series its own segments), after a delete and in a backfilled store; and the
/// store answers from them only past the beat count it is given.
@Suite struct HeartbeatRollupTests {
    static let start = Date(timeIntervalSinceReferenceDate: 785_001_000)

    /// Series of ~2,000 beats with gaps, crossing hour bounds, on two devices.
    static func series() -> [Sample] {
        var other = Fixtures.strap
        other.localIdentifier = "A0:9E:1A:65:43:21"
        var samples: [Sample] = []
        for i in 0..<6 {
            let device: DeviceInfo = i % 2 == 0 ? Fixtures.strap : other
            let t: Date = start.addingTimeInterval(Double(i) * 1500)
            samples.append(Fixtures.heartbeatSample(start: t, count: 2000, seed: UInt64(10 + i), device: device))
        }
        return samples
    }

    /// Merges as `HRVAccumulator.merge` does and gives (count, sdnn, rmssd, pnn50, mean HR, over 20 ms).
    static func metrics(_ rows: [HeartbeatHourSums]) -> (Int, Double, Double, Double, Double, Int) {
        var k: Double?, n = 0, s = 0.0, ss = 0.0, hr = 0.0, dn = 0, dd = 0.0, o50 = 0, o20 = 0
        for h in rows where h.count > 0 {
            let shift = k ?? h.shift
            k = shift
            let m = Double(h.count), delta = h.shift - shift
            s += h.shiftedSum + m * delta
            ss += h.shiftedSquares + 2 * delta * h.shiftedSum + m * delta * delta
            n += h.count
            hr += h.rateSum
            dn += h.differences
            dd += h.squaredDifferences
            o50 += h.over50
            o20 += h.over20
        }
        let count = Double(n)
        let sdnn: Double = ((ss - s * s / count) / (count - 1)).squareRoot()
        let rmssd: Double = (dd / Double(dn)).squareRoot()
        let pnn50: Double = Double(o50) / Double(dn) * 100
        return (n, sdnn, rmssd, pnn50, hr / count, o20)
    }

    static func expectSame(_ db: HeartDatabase, from: Date, to: Date, device: String? = nil, _ stage: String) throws {
        var streamed: [[Double]] = []
        try db.forEachHeartbeatSeries(from: from, to: to, device: device) { streamed += HRVMetrics.segments(of: $0.beats) }
        let expected = try HRVMetrics(segments: streamed)
        var over20 = 0
        for segment in streamed {
            for (a, b) in zip(segment, segment.dropFirst()) where abs(b - a) > 20 { over20 += 1 }
        }
        var rows: [HeartbeatHourSums] = []
        #expect(try db.heartbeatRollup(from: from, to: to, device: device, beatsAbove: 0) { rows.append($0) }, "\(stage)")
        let (n, sdnn, rmssd, pnn50, hr, o20) = metrics(rows)
        func close(_ a: Double, _ b: Double?) -> Bool { abs(a - (b ?? .nan)) <= 1e-9 * max(1, abs(a)) }
        #expect(n == expected.count && o20 == over20, "\(stage): \(n) vs \(expected.count), \(o20) vs \(over20)")
        #expect(close(sdnn, expected.sdnnMs), "\(stage): SDNN \(sdnn) vs \(expected.sdnnMs)")
        #expect(close(rmssd, expected.rmssdMs), "\(stage): RMSSD \(rmssd) vs \(String(describing: expected.rmssdMs))")
        #expect(close(pnn50, expected.pnn50Percent), "\(stage): pNN50 \(pnn50)")
        #expect(close(hr, expected.meanHeartRateBpm), "\(stage): mean HR \(hr) vs \(expected.meanHeartRateBpm)")
    }

    @Test func hourlySumsGiveTheTimeDomainOfTheBeats() throws {
        let db = try HeartDatabase.inMemory()
        let samples = Self.series()
        try db.save(samples)
        let to = Self.start.addingTimeInterval(86400)
        try Self.expectSame(db, from: Self.start, to: to, "saved")
        // A range starting inside a series: the whole series counts, as streamed.
        try Self.expectSame(db, from: Self.start.addingTimeInterval(2000), to: Self.start.addingTimeInterval(5000), "inside")
        try Self.expectSame(db, from: Self.start, to: to, device: Fixtures.strap.localIdentifier, "one device")
        #expect(try db.delete(uuid: samples[1].uuid))
        try Self.expectSame(db, from: Self.start, to: to, "deleted")
        // Up to the beat count given, the caller streams.
        #expect(try !db.heartbeatRollup(from: Self.start, to: to, beatsAbove: 5 * 2000) { _ in })
    }

    @Test func migrationBackfillsTheSums() throws {
        let dir = try TempDirectory()
        do { try HeartDatabase(path: dir.databasePath).save(Self.series()) }
        let queue = try DatabaseQueue(path: dir.databasePath)
        try queue.write { db in
            try db.execute(sql: "DROP TABLE hrv_hourly")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v6-heartbeat-hourly'")
        }
        try queue.close()
        try Self.expectSame(try HeartDatabase(path: dir.databasePath), from: Self.start,
                            to: Self.start.addingTimeInterval(86400), "backfilled")
    }
}
