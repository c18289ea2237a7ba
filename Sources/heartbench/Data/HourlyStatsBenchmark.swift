import Foundation
import HealthModel
import HeartStore

/// Hourly heart-rate statistics over the stored range, median of `runs`: heartd reads the points with
/// `HeartDatabase.quantities` and buckets them (`HourlyStatistics`); the naive table groups in SQL.
struct HourlyStatsBenchmark {
    struct Result {
        var heartdSeconds: Double
        /// `heartctl stats --interval 1h` as the daemon answers it: `quantities` + `QuantityStatisticsCollection`
        /// (each value weighted by its overlap with every hour it touches).
        var collectionSeconds: Double
        var naiveSeconds: Double
        var hours: Int
        var points: Int
        /// Whether both sides found the same hours with the same counts, minima and maxima.
        var agree: Bool
        /// Largest difference between the two weighted means of an hour (bpm).
        var largestMeanDifference: Double
    }

    let runs: Int

    func run(database: HeartDatabase, naive: NaiveLogger, from: Date, to: Date) throws -> Result {
        let (heartd, heartdSeconds) = try Stopwatch.median(runs: runs) {
            HourlyStatistics.compute(try database.quantities(type: .heartRate, from: from, to: to))
        }
        let (_, collectionSeconds) = try Stopwatch.median(runs: runs) {
            try QuantityStatisticsCollection(
                points: try database.quantities(type: .heartRate, from: from, to: to), style: .discreteTemporallyWeighted,
                anchor: from, interval: 3600, from: from, to: to).buckets.count
        }
        let (baseline, naiveSeconds) = try Stopwatch.median(runs: runs) {
            try naive.hourlyStatistics(from: from.timeIntervalSince1970, to: to.timeIntervalSince1970)
        }
        var agree = heartd.count == baseline.count
        var largest = 0.0
        for (a, b) in zip(heartd, baseline) {
            if a.hour != b.hour || a.count != b.count || a.minimum != b.minimum || a.maximum != b.maximum { agree = false }
            largest = max(largest, abs(a.average - b.average))
        }
        return Result(
            heartdSeconds: heartdSeconds, collectionSeconds: collectionSeconds, naiveSeconds: naiveSeconds, hours: heartd.count,
            points: heartd.reduce(0) { $0 + $1.count }, agree: agree, largestMeanDifference: largest)
    }
}
