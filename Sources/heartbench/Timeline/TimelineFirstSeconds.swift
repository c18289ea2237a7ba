import Foundation
import Ingest
import StrapLab

/// `heartbench timeline --first-seconds`: issue 30, item 0 — each fault class starting in the first seconds
/// after a connect and after a reconnect (`FirstSecondsMatrix`), clean runs with a reconnection, and senders that
/// notify only when a beat ends; the table docs/INGEST.md cites ("From the first notification").
enum TimelineFirstSeconds {
    static func run(seeds: UInt64, classes: [FaultClass]) async {
        let offsets = FirstSecondsMatrix.offsets.map { "\($0)" }.joined(separator: ", ")
        let jitters = FirstSecondsMatrix.jitters.map { "\(Int($0 * 1000))" }.joined(separator: ", ")
        print("## The timeline from the first notification: \(seeds) seeds per cell")
        print("")
        print("Each class's one fault starts at notification \(offsets) after a connect, or after a reconnect")
        print("(link lost at notification 60 for 3), at jitter \(jitters) ms; drift within ±100 ppm by seed.")
        print("Worst cell: the lowest precision and recall over the offset × jitter cells. Live: the beats as `watch`")
        print("reported them; stored: the finished series, where late decisions flag a loss at its beat afterwards.")
        print("")
        print("| fault class | connection | needed flags | live precision | live recall | worst cell P / R | stored precision | stored recall | stored worst cell P / R | invented | inexact (live; stored) | RR stored / delivered |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for fault in classes where FirstSecondsMatrix.faults.contains(fault) {
            for afterReconnect in [false, true] {
                let cells = await FirstSecondsMatrix.cells(fault, afterReconnect: afterReconnect, seeds: 0..<seeds)
                var total = TimelineTally()
                for cell in cells { total.add(cell.tally) }
                let worstP = cells.map(\.tally.precision).min() ?? 1
                let worstR = cells.map(\.tally.recall).min() ?? 1
                let storedP = cells.map(\.tally.stored.precision).min() ?? 1
                let storedR = cells.map(\.tally.stored.recall).min() ?? 1
                let unpaired = total.stored.unpaired == 0 ? "" : " (\(total.stored.unpaired) runs unpaired)"
                print("| \(fault.rawValue) | \(afterReconnect ? "reconnect" : "connect") | "
                      + "\(total.truePositives + total.missed) | \(f(total.precision)) | \(f(total.recall)) | "
                      + "\(f(worstP)) / \(f(worstR)) | \(f(total.stored.precision)) | \(f(total.stored.recall))\(unpaired) | "
                      + "\(f(storedP)) / \(f(storedR)) | \(total.invented) | \(total.inexact); \(total.stored.inexact) | "
                      + "\(total.storedRR) / \(total.deliveredRR) |")
            }
        }
        print("")
        print("Clean runs (600 notifications, a reconnection at 300): gaps other than the two connections.")
        print("")
        print("| jitter | runs | false gaps (live; stored) | gaps by rule |")
        print("|---:|---:|---:|---|")
        for jitter in FirstSecondsMatrix.jitters {
            let t = await FirstSecondsMatrix.clean(jitter: jitter, seeds: 0..<seeds)
            print("| \(Int(jitter * 1000)) ms | \(t.runs) | \(t.falsePositives); \(t.stored.falsePositives) | \(rules(t)) |")
        }
        print("")
        print("Per-beat senders (no fault; a reconnection at notification 63): gaps other than the two connections.")
        print("")
        print("| sender | bpm | jitter | runs | false gaps (live; stored) | missed | invented | inexact | gaps by rule |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for sender in [StrapSender.everyBeat, .firstBeatEachPeriod] {
            for bpm in [40.0, 50, 60, 90, 120, 180] {
                for jitter in [0.02, 0.06] {
                    let t = await FirstSecondsMatrix.perBeat(sender, bpm: bpm, jitter: jitter, seeds: 0..<seeds)
                    print("| \(sender.rawValue) | \(Int(bpm)) | \(Int(jitter * 1000)) ms | \(t.runs) | "
                          + "\(t.falsePositives); \(t.stored.falsePositives) | \(t.missed) | \(t.invented) | \(t.inexact) | \(rules(t)) |")
                }
            }
        }
    }

    private static func rules(_ t: TimelineTally) -> String {
        t.gapsByRule.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }

    private static func f(_ x: Double) -> String { String(format: "%.4f", x) }
}
