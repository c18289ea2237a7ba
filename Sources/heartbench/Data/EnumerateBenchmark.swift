import Foundation
import HealthModel
import HeartStore

/// Time to read one day of beats, median of `runs`: heartd in one call (`heartbeatSeries(from:to:)`), heartd
/// series by series (`samples` then `beats(uuid:)` for each), and the naive table's range SELECT.
struct EnumerateBenchmark {
    struct Result {
        var oneCall: Double
        var perSeries: Double
        var naive: Double
        var heartdBeats: Int
        var perSeriesBeats: Int
        var naiveBeats: Int
        var checksums: (heartd: Double, naive: Double)
    }

    let runs: Int

    func run(database: HeartDatabase, naive: NaiveLogger, from: Date, to: Date) throws -> Result {
        let (oneCall, oneCallSeconds) = try Stopwatch.median(runs: runs) { () -> (Int, Double) in
            var count = 0
            var sum = 0.0
            for series in try database.heartbeatSeries(from: from, to: to) {
                let start = series.start.timeIntervalSince1970
                for beat in series.beats { sum += start + beat.offset + (beat.precededByGap ? 1 : 0) }
                count += series.count
            }
            return (count, sum)
        }
        let (perSeries, perSeriesSeconds) = try Stopwatch.median(runs: runs) { () -> Int in
            var count = 0
            for summary in try database.samples(type: Sample.heartbeatSeriesIdentifier, from: from, to: to) {
                count += try database.beats(uuid: summary.uuid)?.count ?? 0
            }
            return count
        }
        let (naiveResult, naiveSeconds) = try Stopwatch.median(runs: runs) {
            // BETWEEN is inclusive; the day is [from, to).
            try naive.enumerateBeats(from: from.timeIntervalSince1970, to: to.timeIntervalSince1970.nextDown)
        }
        return Result(
            oneCall: oneCallSeconds, perSeries: perSeriesSeconds, naive: naiveSeconds,
            heartdBeats: oneCall.0, perSeriesBeats: perSeries, naiveBeats: naiveResult.count,
            checksums: (oneCall.1, naiveResult.checksum))
    }
}
