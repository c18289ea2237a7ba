import ArgumentParser
import Foundation
import HealthModel
import HeartStore
import Ingest

/// `heartbench data`: decode, ingest, size on disk, reading a day and hourly statistics, each against its
/// target and a naive SQLite logger filled with the same data, in one run.
struct DataBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "data",
        abstract: "Decode, ingest, storage size and query benchmarks against targets and a naive SQLite logger.")

    @Option(help: "Days of data for the hourly statistics (default 30; 1 with --quick).")
    var days: Int?

    @Flag(help: "CI-friendly smoke run (< 15 s): fewer iterations and runs, 1 day, 1 h of 1 s checkpoints.")
    var quick = false

    @Option(help: "Hours of data ingested with the daemon's 1 s checkpoints (default 24; 1 with --quick).")
    var checkpointHours: Int?

    @Option(help: "Seed of the synthetic recording.")
    var seed: UInt64 = 42

    @Option(help: "Also write the markdown report to this file.")
    var output: String?

    @Flag(help: "Keep the SQLite files (their directory is printed).")
    var keepFiles = false

    @Flag(help: "Only the 24 h ingest (300 s checkpoints), for profiling it (e.g. under perf record).")
    var ingestOnly = false

    @Option(help: "Only write this many days of the real-RR recording as a replay file (--write-replay) and exit.")
    var replayDays = 1

    @Option(help: "Write the real-RR recording (--replay-days days) to this replay file and exit (memory tests).")
    var writeReplay: String?

    mutating func validate() throws {
        if replayDays < 1 { throw ValidationError("--replay-days must be at least 1") }
        if let days, days < 1 { throw ValidationError("--days must be at least 1") }
        if let checkpointHours, !(1...24).contains(checkpointHours) {
            throw ValidationError("--checkpoint-hours must be between 1 and 24")
        }
    }

    func run() async throws {
        if let writeReplay {
            let bytes = try RealRRRecording.write(days: replayDays, to: writeReplay)
            print("wrote \(replayDays) day(s) of the real-RR recording to \(writeReplay): \(Fmt.bytes(bytes))")
            return
        }
        let plan = DataBenchmarkPlan(quick: quick, days: days, checkpointHours: checkpointHours, seed: seed)
        let workspace = try Workspace()
        defer {
            if keepFiles { print("files kept in \(workspace.directory)") } else { workspace.remove() }
        }
        let machine = MachineInfo.current()
        progress("heartbench data: \(plan.summary); files in \(workspace.directory)")
        let (table, sqliteVersion) = try await DataBenchmarkRun(plan: plan, workspace: workspace).run(ingestOnly: ingestOnly)
        let report = BenchmarkReport.render(
            title: "heartbench data", table: table, machine: machine, sqliteVersion: sqliteVersion,
            command: BenchmarkReport.commandLine)
        try BenchmarkReport.emit(report, to: output)
        if table.missedCount > 0 { print("\(table.missedCount) target(s) missed (see the ok? column)") }
    }
}

/// Sizes of one run of `heartbench data`.
struct DataBenchmarkPlan: Sendable {
    var decodeIterations: Int
    var ingestRuns: Int
    var checkpointHours: Int
    var queryRuns: Int
    var replayRuns: Int
    var days: Int
    var seed: UInt64

    init(quick: Bool, days: Int?, checkpointHours: Int?, seed: UInt64) {
        decodeIterations = quick ? 1_000_000 : 20_000_000
        ingestRuns = quick ? 1 : 3
        self.checkpointHours = checkpointHours ?? (quick ? 1 : 24)
        queryRuns = quick ? 5 : 21
        replayRuns = quick ? 1 : 3
        self.days = days ?? (quick ? 1 : 30)
        self.seed = seed
    }

    var summary: String {
        "\(Fmt.count(decodeIterations)) decodes, \(ingestRuns) ingest run(s), \(checkpointHours) h with 1 s checkpoints, "
            + "median of \(queryRuns) query runs, \(days) day(s) for statistics, seed \(seed)"
    }
}

/// Progress on standard error, so standard output is only the report.
func progress(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
