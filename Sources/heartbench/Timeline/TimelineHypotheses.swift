import StrapLab

/// Whether a run's one fault can be decided from what arrived, with the strap's send grid known exactly (better
/// than any model can know it): the hypothesis "nothing was lost" (H0: the chain continues from the last beat
/// before the fault with the next delivered RR) against the truth. Every notification that arrived with RR must
/// hold exactly the beats whose chain times fall in its window `(send(n−1) − K, send(n) − K]`, for one unknown
/// offset K (link latency, the sensor's detection delay, where the chain was anchored); the truth fits K = 0. H0
/// is refuted at the first notification after which no K fits it; while one does, both hypotheses produce the
/// same arrivals and no rule can tell them apart (docs/INGEST.md, "From the first notification").
enum TimelineHypotheses {
    struct Verdict {
        /// The notification after which H0 no longer fits, nil if it fits to the end of the run.
        var refutedAt: Int?
        /// The same when every beat may lie `slack` (the model's `sendTimeTolerance`, 30 ms) outside its window:
        /// what a check that allows for the strap's detection jitter and the grid's error can decide.
        var refutedWithSlackAt: Int?
        /// The offsets (seconds, the truth's frame) H0 still fits at the last notification, when it fits.
        var fits: ClosedRange<Double>?
        /// The chain shift under H0 (seconds): the lost beats' span.
        var shift: Double
    }

    static let slack = 0.03

    static func verdict(_ r: StrapRecording) -> Verdict? {
        let s = r.scenario
        guard let start = s.faultStarts?.first, start < r.sent.count else { return nil }
        let connection = s.outage?.upperBound ?? 0
        var faulty = start
        while faulty < r.sent.count, r.sent[faulty].fault != "normal" { faulty += 1 }
        let lost = r.sent[start..<faulty].flatMap { Array($0.window) }
        guard let firstLost = lost.min(), let lastLost = lost.max(), firstLost >= 1 else { return nil }
        let before = firstLost - 1
        let shift = Double(r.beatTicks[lastLost] - r.beatTicks[before]) / 1024
        func chain(_ k: Int) -> Double { Double(r.beatTicks[k]) / 1024 - (k > lastLost ? shift : 0) }
        // The arrived notifications with RR of the connection, before and after the fault.
        let arrived = (connection..<r.sent.count).filter { n in
            r.sent[n].arrival != nil && r.sent[n].fault == "normal" && !(start..<faulty).contains(n)
        }
        let period = s.period
        func fits(_ k: Double, upTo m: Int, slack: Double) -> Bool {
            for n in arrived where n <= m {
                let low = Double(n) * period - k, high = Double(n + 1) * period - k
                for beat in r.sent[n].window where !(chain(beat) > low - slack && chain(beat) <= high + slack) { return false }
            }
            // No beat of H0's chain in a window that arrived empty.
            for n in arrived where n <= m && r.sent[n].window.isEmpty {
                let low = Double(n) * period - k, high = Double(n + 1) * period - k
                let inside = (r.sent[connection].window.lowerBound..<r.beatTicks.count).contains { beat in
                    !lost.contains(beat) && chain(beat) > low + slack && chain(beat) <= high - slack
                }
                if inside { return false }
            }
            return true
        }
        let candidates = stride(from: -1.0, through: 2.0, by: 0.0005).map { $0 }
        func refuted(slack: Double) -> (at: Int?, alive: [Double]) {
            var alive = candidates
            for m in arrived where m >= faulty {
                alive = alive.filter { fits($0, upTo: m, slack: slack) }
                if alive.isEmpty { return (m, []) }
            }
            return (nil, alive)
        }
        let exact = refuted(slack: 0), loose = refuted(slack: Self.slack)
        return Verdict(refutedAt: exact.at, refutedWithSlackAt: loose.at,
                       fits: exact.alive.isEmpty ? nil : exact.alive.min()!...exact.alive.max()!, shift: shift)
    }
}
