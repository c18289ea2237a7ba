import Foundation
import StrapLab

/// `heartbench timeline --first-seconds --list-misses`: every missed and false flag of `FirstSecondsMatrix` for the
/// chosen classes (default: those below 1.0), each with the notifications around it as the strap sent them — send
/// time, arrival lateness, the fault, the true beats of the window (when each fell before the send) and their RR —
/// so each case can be argued from what arrived (docs/INGEST.md, "From the first notification").
enum TimelineMisses {
    static let defaultClasses: [FaultClass] = [.singleLoss, .drift, .rrLess]

    static func run(seeds: UInt64, classes: [FaultClass]) async {
        print("## Missed and false flags from the first notification: \(seeds) seeds per cell")
        print("")
        var count = 0
        for fault in classes where FirstSecondsMatrix.faults.contains(fault) {
            for afterReconnect in [false, true] {
                for offset in FirstSecondsMatrix.offsets {
                    for jitter in FirstSecondsMatrix.jitters {
                        for seed in 0..<seeds {
                            let scenario = StrapScenario.firstSeconds(fault, seed: seed, offset: offset, jitter: jitter,
                                                                      afterReconnect: afterReconnect)
                            let recording = StrapGenerator.generate(scenario)
                            let tally = await TimelineScore.score(recording)
                            let broken = tally.invented + tally.inexact + (tally.deliveredRR - tally.storedRR)
                            guard !tally.cases.isEmpty || broken > 0 else { continue }
                            count += tally.cases.count
                            print(header(scenario, afterReconnect: afterReconnect, offset: offset, tally: tally))
                            print("")
                            print(verdict(recording, cases: tally.cases))
                            print("")
                            trace(recording, cases: tally.cases)
                            print("")
                        }
                    }
                }
            }
        }
        print("\(count) cases.")
    }

    static func header(_ s: StrapScenario, afterReconnect: Bool, offset: Int, tally: TimelineTally) -> String {
        let cases = tally.cases.map { "\($0.kind.rawValue) at beat \($0.beat)" }.joined(separator: ", ")
        let rules = tally.gapsByRule.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let broken = tally.invented + tally.inexact + (tally.deliveredRR - tally.storedRR) == 0 ? ""
            : "; \(tally.invented) invented, \(tally.inexact) inexact, \(tally.deliveredRR - tally.storedRR) RR unstored"
        return "### \(s.fault.rawValue), \(afterReconnect ? "reconnect" : "connect") + \(offset), "
            + "jitter \(Int(s.maxJitter * 1000)) ms, seed \(s.seed), drift \(String(format: "%+.0f", s.driftPPM)) ppm: "
            + "\(cases) (rules: \(rules))\(broken); stored: \(stored(tally.stored))"
    }

    /// The stored series' score beside the live one (a late decision may have flagged the loss at its beat).
    static func stored(_ t: StoredTally) -> String {
        t.missed + t.falsePositives + t.inexact == 0 && t.unpaired == 0 ? "exact"
            : "\(t.missed) missed, \(t.falsePositives) false, \(t.inexact) inexact\(t.unpaired > 0 ? ", unpaired" : "")"
    }

    static func verdict(_ r: StrapRecording, cases: [TimelineCase]) -> String {
        guard let v = TimelineHypotheses.verdict(r) else { return "No lost beat in the fault: nothing to decide." }
        // The notification that delivered each beat flagged where nothing was missing.
        let flagged = cases.filter { $0.kind == .falseGap }.compactMap { c in r.sent.firstIndex { $0.window.contains(c.beat) } }
        let shift = String(format: "%.0f ms", v.shift * 1000)
        let model = flagged.isEmpty ? "the model never flagged it" : "the model flagged it late at \(flagged.map { "\($0)" }.joined(separator: ", "))"
        let slack = Int(TimelineHypotheses.slack * 1000)
        let loose = v.refutedWithSlackAt.map { "with \(slack) ms of slack at \($0)" } ?? "with \(slack) ms of slack never"
        if let at = v.refutedAt {
            return "Decidable: \"nothing lost\" (chain \(shift) early) fits no offset once notification \(at) arrived "
                + "(\(loose)); \(model)." + places(r)
        }
        let fits = v.fits.map { String(format: "%.0f…%.0f ms", $0.lowerBound * 1000, $0.upperBound * 1000) } ?? "?"
        return "Undecidable in the run: \"nothing lost\" (chain \(shift) early) fits every arrival to the end with the offset in \(fits) (the truth: 0)."
    }

    /// Whether the beat may have been lost at a notification without RR instead (`TimelineHypotheses.places`).
    static func places(_ r: StrapRecording) -> String {
        let places = TimelineHypotheses.places(r)
        guard !places.isEmpty else { return "" }
        func ms(_ range: ClosedRange<Double>?) -> String {
            range.map { String(format: "%.0f…%.0f ms", $0.lowerBound * 1000, $0.upperBound * 1000) } ?? "?"
        }
        let fitting = places.filter { $0.refutedAt == nil }
        let each = places.map { p in
            p.refutedAt.map { "at \(p.notification) refuted at \($0)" }
                ?? "at \(p.notification) fits every arrival (offset \(ms(p.offsets)), its RR \(ms(p.lostRR)))"
        }.joined(separator: "; ")
        return " Loss at a notification without RR instead: \(each) — \(fitting.isEmpty ? "only the fault's place fits" : "\(fitting.count + 1) places fit")."
    }

    /// The notifications from two before the fault to two after the last case's.
    static func trace(_ r: StrapRecording, cases: [TimelineCase]) {
        let s = r.scenario
        let first = max(0, (s.faultStarts?.first ?? 0) - 2)
        let lastBeat = cases.map(\.beat).max() ?? 0
        let last = min(r.sent.count - 1, (r.sent.firstIndex { $0.window.contains(lastBeat) } ?? first) + 2)
        let marked = Set(cases.map(\.beat))
        guard first <= last else { return }
        print("| n | send s | late ms | fault | beats (s before send) | RR ms |")
        print("|---:|---:|---:|---|---|---|")
        for n in first...last {
            let sent = r.sent[n]
            let late = sent.arrival.map { String(format: "%.0f", ($0 - sent.send * (1 + s.driftPPM * 1e-6) - s.latency) * 1000) } ?? "—"
            let beats = sent.window.map { k in
                String(format: "%@%d %.3f", marked.contains(k) ? "*" : "", k, sent.send - Double(r.beatTicks[k]) / 1024)
            }.joined(separator: ", ")
            let rr = sent.window.map { String(format: "%.0f", Double(r.rr[$0]) * 1000 / 1024) }.joined(separator: ", ")
            print("| \(n) | \(String(format: "%.3f", sent.send)) | \(late) | \(sent.fault) | \(beats) | \(rr) |")
        }
    }
}
