import Foundation
import HeartStore

extension DataBenchmarkRun {
    /// A real-RR day (`RealRRRecording`) replayed by `heartd replay` and by the naive Python importer, as
    /// processes on the same file in the same run: time, and the bytes each leaves on disk.
    func realRRDay(into table: inout ResultTable) throws {
        progress("real-RR day: heartd replay vs the naive importer (\(plan.replayRuns) run(s) each) …")
        let file = workspace.path("real-rr-day.jsonl")
        let fileBytes = try RealRRRecording.write(days: 1, to: file)
        let r = try ReplayBenchmark(workspace: workspace, runs: plan.replayRuns).run(file: file)
        let runs = plan.replayRuns > 1 ? "median of \(plan.replayRuns)" : "1 run"
        let wallRatio = r.naive.wall / r.heartd.wall, cpuRatio = r.naive.cpu / r.heartd.cpu
        table.add("Replay a real-RR day: `heartd replay` process, wall (\(runs))", heartd: Fmt.s(r.heartd.wall),
                  baseline: "naive importer \(Fmt.s(r.naive.wall)) (\(Fmt.fixed(wallRatio, 1))× slower)",
                  target: "≥ 5× faster", verdict: Verdict(wallRatio >= 5))
        table.add("… CPU, user + system (\(runs))", heartd: Fmt.s(r.heartd.cpu),
                  baseline: "\(Fmt.s(r.naive.cpu)) (\(Fmt.fixed(cpuRatio, 1))×)")
        let sizeRatio = Double(r.naiveBytes) / Double(r.heartdBytes)
        table.add("Whole store of a real-RR day after a clean stop (database, WAL, journal)",
                  heartd: Fmt.bytes(r.heartdBytes),
                  baseline: "\(Fmt.bytes(r.naiveBytes)) (\(Fmt.fixed(sizeRatio, 1))× larger)",
                  target: "≥ 12× smaller", verdict: Verdict(sizeRatio >= 12))
        table.note("Real-RR day: pyhrv's 337 real NN intervals looped by `SimulatorScript`, one notification a second, "
            + "\(Fmt.bytes(fileBytes)) of JSON lines; heartd: \(r.heartdOutput); naive (`scripts/bench/naive_import.py`, "
            + "Python + sqlite3, `beat(device, t, gap)` and `hr(device, t, bpm)`, one commit): \(r.naiveOutput). "
            + "Runs (wall/CPU s), heartd: \(describe(r.heartdRuns)); naive: \(describe(r.naiveRuns)).")
        let store = try HeartDatabase.openReadOnly(path: r.heartdStore)
        defer { try? store.close() }
        if let pages = SizeBenchmark.pageBreakdown(of: store) {
            table.note("Real-RR day store, dbstat: " + pages.prefix(6).map { "\($0.name) \(Fmt.bytes($0.bytes))" }
                .joined(separator: ", ") + ".")
        }
    }

    private func describe(_ runs: [ReplayBenchmark.Timing]) -> String {
        runs.map { "\(Fmt.fixed($0.wall, 3))/\(Fmt.fixed($0.cpu, 3))" }.joined(separator: ", ")
    }
}
