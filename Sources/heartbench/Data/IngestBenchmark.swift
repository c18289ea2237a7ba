import Foundation
import HealthModel
import HeartStore
import HeartdKit
import Ingest
import SourceEvents
import Logging

/// Replay events → `IngestPipeline` → `StoreSink` → `HeartDatabase` on a real SQLite file, timed end to end
/// (decode, beat timeline, builders, encoding, SQLite writes and checkpoints; opening the file is not timed).
struct IngestBenchmark {
    struct Result {
        var seconds: Double
        /// Seconds of each day's replay (the final finish not included).
        var dayTimes: [Double]
        var notifications: Int
        var beats: Int
        var seriesFinished: Int
        var gaps: [String: Int]
        var malformed: Int
    }

    let settings: IngestSettings
    /// Checkpoints through the open-series journal, as the daemon writes them (else one SQLite transaction each).
    var journal = false

    /// Ingests `days` days (`secondsPerDay` each) of `recording` into `database`, finishing everything at the
    /// end. Each day is generated before its replay; only the replays and the final finish are timed.
    func run(into database: HeartDatabase, recording: inout some DayRecording, days: Int,
             secondsPerDay: Int = SyntheticRecording.secondsPerDay) async throws -> Result {
        let silent = Logger(label: "heartbench", factory: { _ in SwiftLogNoOpLogHandler() })
        let checkpoints = journal ? try CheckpointWriter(database: database) : nil
        let pipeline = IngestPipeline(settings: settings, sink: StoreSink(database: database, checkpoints: checkpoints, logger: silent),
                                      logger: silent)
        var dayTimes: [Double] = []
        for _ in 0..<days {
            let events = recording.nextDay(seconds: secondsPerDay)
            // As `consume(_:tickWithEventTime: true)` does, under one lock: measures the pipeline, not the stream.
            dayTimes.append(Stopwatch.measure { pipeline.handleNow(events, tickWithEventTime: true) }.seconds)
        }
        let finish = await Stopwatch.measureAsync { await pipeline.finishAll(reason: .shutdown) }.seconds
        let seconds = dayTimes.reduce(0, +) + finish
        let status = await pipeline.status()
        let sink = await pipeline.sinkStatus()
        guard sink.queuedBatches == 0, sink.droppedBeats == 0, sink.failures == 0 else {
            throw BenchmarkError("the store did not take every sample: \(sink)")
        }
        return Result(
            seconds: seconds, dayTimes: dayTimes,
            notifications: status.reduce(0) { $0 + $1.counters.notifications },
            beats: status.reduce(0) { $0 + $1.counters.beats },
            seriesFinished: status.reduce(0) { $0 + $1.seriesFinished },
            gaps: status.reduce(into: [:]) { all, s in all.merge(s.counters.gapsByRule, uniquingKeysWith: +) },
            malformed: status.reduce(0) { $0 + $1.counters.malformed })
    }
}

/// A recording generated a day at a time: `SyntheticRecording` (random-walk RR) or `RealRRRecording` (a real RR
/// recording in a loop).
protocol DayRecording {
    /// The events of the next day (`seconds` seconds of it: less for a shortened run).
    mutating func nextDay(seconds: Int) -> [SourceEvent]
}

extension SyntheticRecording: DayRecording {}

/// A benchmark that could not produce its figure (the data did not come out as generated).
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) { self.description = description }
}
