import ArgumentParser
import Foundation
import HealthModel

/// `heartbench hrv`: the cost of HRV on a day of beats (artifact classification and correction, time domain,
/// Poincaré, DFA α1/α2: everything `HRVAnalysis` computes) and of one live DFA α1 update (`LiveDFAAlpha1`,
/// a 2-minute window). Frequency domain included. The beats are a real RR recording (one RR in ms per line; default pyhrv's
/// SampleNNISeriesLong, 4684 intervals with ectopic beats) looped to `--beats` intervals on the 1/1024 s grid,
/// as `scripts/reference/hrv_neurokit2_timing.py` builds them for NeuroKit2.
struct HRVBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hrv",
        abstract: "HRV of ~100,000 beats (< 250 ms) and one live DFA α1 update (< 1 ms).")

    @Option(help: "An RR file (ms, one per line).")
    var rrFile = "Tests/HealthModelTests/Fixtures/pyhrv_SampleNNISeriesLong.txt"

    @Option(help: "RR intervals in all (the file looped).")
    var beats = 100_000

    @Option(help: "Timed runs of the whole analysis (the median is reported).")
    var runs = 5

    func run() throws {
        guard let data = FileManager.default.contents(atPath: rrFile) else { throw ValidationError("cannot read \(rrFile)") }
        let rr = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { Double($0) }
        guard !rr.isEmpty else { throw ValidationError("no RR in \(rrFile)") }
        let chain = (0 ..< beats).map { rr[$0 % rr.count] }
        var sum = 0.0
        var offsets = [0.0]
        for v in chain {
            sum += v
            offsets.append((sum * 1.024).rounded() / 1024)
        }
        let series = offsets.enumerated().map { Beat(offset: $1, precededByGap: $0 == 0) }

        let (analysis, seconds) = try Stopwatch.median(runs: runs) { try HRVAnalysis(beats: series) }

        // Live: feed the first 10 minutes, then time each 5-second update over the next ones.
        var live = LiveDFAAlpha1()
        var updateTimes: [Double] = []
        let clock = ContinuousClock()
        for (i, beat) in series.enumerated() where i < min(series.count, 3000) {
            let start = clock.now
            let reading = live.append(beat)
            let elapsed = (clock.now - start).seconds
            if reading != nil, beat.offset > 600 { updateTimes.append(elapsed) }
        }
        updateTimes.sort()
        let median = updateTimes.isEmpty ? .nan : updateTimes[updateTimes.count / 2]
        let worst = updateTimes.last ?? .nan

        print("## HRV: \(beats) intervals of \(rrFile) (looped), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print("")
        print("| measure | heartd | target |")
        print("|---|---:|---:|")
        print("| all measures (classify + correct + time + frequency + Poincaré + DFA α1/α2), median of \(runs) | "
              + String(format: "%.1f ms", seconds * 1000) + " | < 250 ms |")
        print("| live DFA α1 update (2-min window), median of \(updateTimes.count) | "
              + String(format: "%.1f µs", median * 1e6) + " | < 1 ms |")
        print("| live DFA α1 update, worst | " + String(format: "%.1f µs", worst * 1e6) + " | |")
        print("")
        let a = analysis.artifacts
        print("corrected \(a.corrected) of \(a.intervals) (\(String(format: "%.2f", a.correctedPercent)) %), "
              + "SDNN \(String(format: "%.3f", analysis.time.metrics.sdnnMs)) ms, "
              + "DFA α1 \(analysis.dfaAlpha1.map { String(format: "%.4f", $0) } ?? "-"), "
              + "α2 \(analysis.dfaAlpha2.map { String(format: "%.4f", $0) } ?? "-")")
    }
}
