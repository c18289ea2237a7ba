import Foundation
import HealthModel
@testable import HeartStore
import SeededRandom

/// A unique temporary directory per test, removed when the value goes away.
final class TempDirectory {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("heartstore-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    var databasePath: String { url.appendingPathComponent("heart.sqlite").path }
    deinit { try? FileManager.default.removeItem(at: url) }
}

enum Fixtures {
    /// A fixed start on a whole millisecond, so quantity dates are on the stored grid.
    static let start = Date(timeIntervalSinceReferenceDate: 785_000_000.123)

    static let strap = DeviceInfo(
        name: "Polar H10 12345678", manufacturer: "Polar Electro Oy", model: "H10", hardwareVersion: "39044024.10",
        firmwareVersion: "5.0.0", softwareVersion: "1.1.0", localIdentifier: "A0:9E:1A:12:34:56",
        metadata: [MetadataKey.serialNumber: "12345678", MetadataKey.bodySensorLocation: "chest"])

    /// Realistic beats: RR 600–1100 ms in 1/1024 s ticks, an occasional gap.
    static func beats(count: Int, seed: UInt64) -> [Beat] {
        var rng = SplitMix64(seed: seed)
        var ticks = 0
        return (0..<count).map { i in
            ticks += Int.random(in: 614...1126, using: &rng)
            return Beat(offset: Double(ticks) / 1024, precededByGap: i == 0 || Int.random(in: 0..<50, using: &rng) == 0)
        }
    }

    /// 1 Hz heart-rate points, 60–180 bpm, each ending at the next start (the last lasts 1 s).
    static func heartRatePoints(count: Int, start: Date = Fixtures.start, seed: UInt64) -> [QuantityPoint] {
        var rng = SplitMix64(seed: seed)
        var value = 90.0
        return (0..<count).map { i in
            value = min(180, max(60, value + Double(Int.random(in: -3...3, using: &rng))))
            return QuantityPoint(value: value, start: start.addingTimeInterval(Double(i)),
                                 end: start.addingTimeInterval(Double(i + 1)))
        }
    }

    static func heartbeatSample(start: Date = Fixtures.start, count: Int = 1000, seed: UInt64 = 1,
                                device: DeviceInfo? = Fixtures.strap, metadata: Metadata = [:]) -> Sample {
        let beats = beats(count: count, seed: seed)
        return .heartbeatSeries(HeartbeatSeriesSample(
            start: start, end: start.addingTimeInterval(beats.last?.offset ?? 0), beats: beats,
            device: device, metadata: metadata))
    }

    static func heartRateSample(start: Date = Fixtures.start, count: Int = 900, seed: UInt64 = 2,
                                device: DeviceInfo? = Fixtures.strap, metadata: Metadata = [:]) -> Sample {
        let points = heartRatePoints(count: count, start: start, seed: seed)
        return .quantity(QuantitySample(
            type: .heartRate, start: start, end: points.last?.end ?? start, points: points,
            aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted),
            device: device, metadata: metadata))
    }
}

/// The open-series journal's bytes up to the end of its last intact record: a writer's journal is followed by the
/// zeros of blocks reserved ahead, so a torn write is simulated by cutting here, not at the file's end.
func journalRecords(_ path: String) throws -> Data {
    let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
    return bytes.prefix(try JournalScan([UInt8](bytes), path: path).validLength)
}
