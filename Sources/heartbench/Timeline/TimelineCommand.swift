import ArgumentParser
import Foundation
import Ingest
import StrapLab

/// `heartbench timeline`: gap precision and recall per fault class over many seeds, heartd's timeline model
/// beside the loud rules alone (`quietLossDetection = false`, what heartd did before), on the real RR recording
/// played by the simulated strap of `StrapLab` (docs/INGEST.md, "Timeline model"); with `--first-seconds`, the
/// first seconds of every connection (`TimelineFirstSeconds`).
struct TimelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Gap precision/recall per fault class: the timeline model vs the loud rules alone.")

    @Option(help: "Seeds per fault class (jitter cycles 20/100/200/400 ms with the seed).")
    var seeds: UInt64 = 200

    @Option(help: "Notifications per run (one a second).")
    var notifications: Int = 300

    @Option(help: "Only these fault classes (comma-separated raw names).")
    var classes: String?

    @Flag(help: "Faults in the first seconds after a connect and a reconnect, clean runs, per-beat senders (issue 30).")
    var firstSeconds = false

    @Flag(help: "With --first-seconds: list every missed and false flag with the notifications around it (default classes: single-loss, drift, rr-less).")
    var listMisses = false

    func run() async throws {
        if listMisses && !firstSeconds { throw ValidationError("--list-misses goes with --first-seconds") }
        let chosen = try classes.map { list in
            try list.split(separator: ",").map { name in
                guard let fault = FaultClass(rawValue: String(name)) else {
                    throw ValidationError("unknown fault class \(name); known: \(FaultClass.allCases.map(\.rawValue))")
                }
                return fault
            }
        }
        if listMisses {
            await TimelineMisses.run(seeds: seeds, classes: chosen ?? TimelineMisses.defaultClasses)
            return
        }
        let all = chosen ?? FaultClass.allCases
        if firstSeconds {
            await TimelineFirstSeconds.run(seeds: seeds, classes: all)
            return
        }
        print("## Beat timeline under injected faults: \(seeds) seeds × \(notifications) notifications per class")
        print("")
        print("Real RR (pyhrv SampleNNISeriesShort, looped from a seeded start) played by a simulated strap: one")
        print("notification a second, 15 ms latency + U(0, jitter) with jitter 20/100/200/400 ms, drift ±100 ppm.")
        print("Gap flags scored per stored beat: needed = implied predecessor or beats missing before it.")
        print("")
        print("| fault class | losses (needed flags) | precision | recall | stored P / R | baseline precision | baseline recall | RR stored / delivered | invented | inexact | flags by rule |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        let baseline = IngestSettings(quietLossDetection: false)
        for fault in all {
            let ours = await TimelineScore.score(fault, seeds: 0..<seeds, notifications: notifications)
            let old = await TimelineScore.score(fault, seeds: 0..<seeds, notifications: notifications, settings: baseline)
            let rules = ours.gapsByRule.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            print("| \(fault.rawValue) | \(ours.truePositives + ours.missed) | \(f(ours.precision)) | \(f(ours.recall)) "
                  + "| \(f(ours.stored.precision)) / \(f(ours.stored.recall)) | \(f(old.precision)) | \(f(old.recall)) | \(ours.storedRR) / \(ours.deliveredRR) "
                  + "| \(ours.invented) | \(ours.inexact) | \(rules) |")
        }
        print("")
        print("`invented`: stored beats that are no true beat or a true beat twice; `inexact`: unflagged intervals between")
        print("consecutive true beats that differ from the delivered RR by more than 1/100 tick. Baseline: the same runs")
        print("with `quietLossDetection = false` (the loud rules only). Precision and recall: the beats as reported live;")
        print("stored: the finished series, where a late decision flags a loss at its beat (docs/INGEST.md, \"Late decisions\").")
    }

    private func f(_ x: Double) -> String { String(format: "%.4f", x) }
}
