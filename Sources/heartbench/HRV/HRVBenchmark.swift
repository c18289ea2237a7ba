import ArgumentParser
import Foundation
import HealthModel
import Posix

/// `heartbench hrv`: the cost of HRV on a day of beats (artifact classification and correction, time domain,
/// Poincaré, DFA α1/α2, Welch's and Lomb–Scargle's frequency domain: everything `HRVAnalysis` computes), each stage
/// on its own, and of one live DFA α1 update (`LiveDFAAlpha1`, a 2-minute window). The beats are a real RR recording
/// (one RR in ms per line; default pyhrv's SampleNNISeriesLong, 4684 intervals with ectopic beats) looped to
/// `--beats` intervals on the 1/1024 s grid, as `scripts/reference/hrv_neurokit2_timing.py` builds them for
/// NeuroKit2; `--neurokit2` runs that script on the same beats and prints its times beside heartd's.
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

    @Flag(help: "Also time NeuroKit2 on the same beats (python3 scripts/reference/hrv_neurokit2_timing.py --json).")
    var neurokit2 = false

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

        // Wall and CPU time of each run (the CPU time is what the shared machine's other load does not inflate).
        var cpuTimes: [Double] = []
        let (analysis, seconds) = try Stopwatch.median(runs: runs) {
            let cpu0 = ProcessCPUClock.now()
            defer { cpuTimes.append(ProcessCPUClock.now() - cpu0) }
            return try HRVAnalysis(beats: series)
        }
        let cpuSeconds = cpuTimes.sorted()[cpuTimes.count / 2]

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

        let stages = try Self.stages(series, runs: runs)
        let reference = neurokit2 ? try Self.neuroKit2(beats: beats, runs: 1) : (version: "not run", times: [:])
        func nk(_ key: String, _ unit: Double, _ format: String) -> String {
            reference.times[key].map { String(format: format, $0 * unit) } ?? "–"
        }

        print("## HRV: \(beats) intervals of \(rrFile) (looped), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print("")
        print("| measure | heartd | NeuroKit2 \(reference.version) | target |")
        print("|---|---:|---:|---:|")
        print("| all measures (classify + correct + time + Poincaré + DFA α1/α2 + Welch + Lomb–Scargle), median of \(runs) | "
              + String(format: "%.1f ms", seconds * 1000) + " | " + nk("all_s", 1000, "%.1f ms") + " | < 250 ms |")
        print("| all measures, CPU time, median of \(runs) | " + String(format: "%.1f ms", cpuSeconds * 1000) + " | | < 250 ms |")
        for (name, key, stageSeconds) in stages {
            print("| – \(name), CPU | " + String(format: "%.1f ms", stageSeconds * 1000) + " | " + nk(key, 1000, "%.1f ms") + " | |")
        }
        print("| live DFA α1 update (2-min window), median of \(updateTimes.count) | "
              + String(format: "%.1f µs", median * 1e6) + " | " + nk("live_s", 1e6, "%.1f µs") + " | < 1 ms |")
        print("| live DFA α1 update, worst | " + String(format: "%.1f µs", worst * 1e6) + " | | |")
        print("")
        let a = analysis.artifacts
        print("corrected \(a.corrected) of \(a.intervals) (\(String(format: "%.2f", a.correctedPercent)) %), "
              + "SDNN \(String(format: "%.3f", analysis.time.metrics.sdnnMs)) ms, "
              + "DFA α1 \(analysis.dfaAlpha1.map { String(format: "%.4f", $0) } ?? "-"), "
              + "α2 \(analysis.dfaAlpha2.map { String(format: "%.4f", $0) } ?? "-")")
    }

    /// Each stage of `HRVAnalysis` on its own (median CPU time of `runs`), on the one gap-free segment of `series`: name,
    /// the key of NeuroKit2's time for it (`hrv_neurokit2_timing.py --json`), seconds.
    static func stages(_ series: [Beat], runs: Int) throws -> [(String, String, Double)] {
        let peaks = series.map { HRVAnalysis.ticks($0.offset) }
        let (correction, correcting) = cpuMedian(runs: runs) { RRArtifactCorrection(peaks: peaks) }
        let nn = correction.intervalsMs()
        let timed = [(times: correction.peaks.dropFirst().map { Double($0) / 1024 }, intervalsMs: nn)]
        let time = try cpuMedian(runs: runs) { try HRVTimeDomain(segments: [nn]) }.seconds
        let poincare = cpuMedian(runs: runs) { PoincareMetrics(segments: [nn]) }.seconds
        let alpha1 = cpuMedian(runs: runs) { DetrendedFluctuation.alpha(segments: [nn], scales: DetrendedFluctuation.shortScales) }
        let alpha2 = cpuMedian(runs: runs) { DetrendedFluctuation.alpha(segments: [nn], scales: DetrendedFluctuation.longScales) }
        let welch = cpuMedian(runs: runs) { HRVFrequencyDomain(segments: timed) }.seconds
        let lomb = cpuMedian(runs: runs) { HRVFrequencyDomain(lombScargleSegments: timed) }.seconds
        return [("artifact classification and correction", "fixpeaks_s", correcting), ("time domain", "time_s", time),
                ("Poincaré SD1/SD2", "poincare_s", poincare), ("DFA α1 (4–16)", "dfa1_s", alpha1.seconds),
                ("DFA α2 (16–64)", "dfa2_s", alpha2.seconds), ("Welch (4 Hz spline, 256-s windows)", "welch_s", welch),
                ("Lomb–Scargle (5-min windows)", "lomb_s", lomb)]
    }

    /// The median process CPU time of `runs` runs of `body` (seconds), and the last result.
    static func cpuMedian<T>(runs: Int, _ body: () throws -> T) rethrows -> (result: T, seconds: Double) {
        var cpu0 = ProcessCPUClock.now()
        var last = try body()
        var times = [ProcessCPUClock.now() - cpu0]
        for _ in 1 ..< max(runs, 1) {
            cpu0 = ProcessCPUClock.now()
            last = try body()
            times.append(ProcessCPUClock.now() - cpu0)
        }
        return (last, times.sorted()[times.count / 2])
    }

    /// `python3 scripts/reference/hrv_neurokit2_timing.py --json --beats N --runs R`: its times in seconds by key.
    static func neuroKit2(beats: Int, runs: Int) throws -> (version: String, times: [String: Double]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "scripts/reference/hrv_neurokit2_timing.py", "--json", "--beats", String(beats),
                             "--runs", String(runs)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw ValidationError("hrv_neurokit2_timing.py failed (pip install neurokit2==0.3.0 astropy)") }
        var times: [String: Double] = [:]
        for (key, value) in json { if let v = value as? Double { times[key] = v } }
        return (json["neurokit2"] as? String ?? "?", times)
    }
}
