import Foundation
import HealthModel
import HeartStore

/// The finished samples heartd stored for a time range, read back so the naive baseline and the size
/// measurements use exactly the same beats and heart-rate values.
struct StoredData {
    var heartbeatSeries: [HeartbeatSeriesSample]
    var heartRateSamples: [QuantitySample]

    init(database: HeartDatabase, from: Date, to: Date) throws {
        heartbeatSeries = try database.heartbeatSeries(from: from, to: to)
        heartRateSamples = try database.samples(type: QuantityType.heartRate.identifier, from: from, to: to)
            .compactMap { summary in
                if case .quantity(let sample)? = try database.sample(uuid: summary.uuid) { sample } else { nil }
            }
    }

    var beatCount: Int { heartbeatSeries.reduce(0) { $0 + $1.count } }
    var heartRatePointCount: Int { heartRateSamples.reduce(0) { $0 + $1.count } }

    /// One naive row per beat (absolute Unix time).
    var naiveBeats: [NaiveLogger.BeatRow] {
        var rows: [NaiveLogger.BeatRow] = []
        rows.reserveCapacity(beatCount)
        for series in heartbeatSeries {
            let start = series.start.timeIntervalSince1970
            let device = series.device?.localIdentifier ?? ""
            for beat in series.beats {
                rows.append(NaiveLogger.BeatRow(device: device, t: start + beat.offset, gap: beat.precededByGap))
            }
        }
        return rows
    }

    /// One naive row per heart-rate value.
    var naiveHeartRates: [NaiveLogger.HeartRateRow] {
        heartRateSamples.flatMap { sample in
            NaiveLogger.heartRateRows(sample.points, device: sample.device?.localIdentifier ?? "")
        }
    }
}

extension NaiveLogger {
    static func heartRateRows(_ points: [QuantityPoint], device: String) -> [HeartRateRow] {
        points.map { p in
            HeartRateRow(device: device, start: p.start.timeIntervalSince1970, end: p.end.timeIntervalSince1970, bpm: p.value)
        }
    }
}
