/// Whether a run's one fault can be decided from what arrived, with the strap's send grid known exactly (better
/// than any model can know it): the hypothesis "nothing was lost" (H0: the chain continues from the last beat
/// before the fault with the next delivered RR) against the truth. Every notification that arrived with RR must
/// hold exactly the beats whose chain times fall in its window `(send(n−1) − K, send(n) − K]`, for one unknown
/// offset K (link latency, the sensor's detection delay, where the chain was anchored); the truth fits K = 0. H0
/// is refuted at the first notification after which no K fits it; while one does, both hypotheses produce the
/// same arrivals and no rule can tell them apart (docs/INGEST.md, "From the first notification").
/// `places` asks the next question where H0 is refuted: could the beat have been lost somewhere else instead?
public enum TimelineHypotheses {
    public struct Verdict: Sendable {
        /// The notification after which H0 no longer fits, nil if it fits to the end of the run.
        public var refutedAt: Int?
        /// The same when every beat may lie `slack` (the model's `sendTimeTolerance`, 30 ms) outside its window:
        /// what a check that allows for the strap's detection jitter and the grid's error can decide.
        public var refutedWithSlackAt: Int?
        /// The offsets (seconds, the truth's frame) H0 still fits at the last notification, when it fits.
        public var fits: ClosedRange<Double>?
        /// The chain shift under H0 (seconds): the lost beats' span.
        public var shift: Double
    }

    public static let slack = 0.03

    /// The run's fault as the hypotheses see it: H0's chain and the notifications with RR it must fit.
    struct Setup {
        var r: StrapRecording
        /// The connection's first notification, the fault's first and the first after it.
        var connection: Int, start: Int, faulty: Int
        /// The true beats the fault lost.
        var lost: [Int]
        /// The chain shift under H0 (seconds) and the first beat it moves.
        var shift: Double, firstMoved: Int
        /// The notifications with RR of the connection, before and after the fault.
        var arrived: [Int]

        init?(_ r: StrapRecording) {
            let s = r.scenario
            guard let start = s.faultStarts?.first, start < r.sent.count else { return nil }
            connection = s.outage?.upperBound ?? 0
            var faulty = start
            while faulty < r.sent.count, r.sent[faulty].fault != "normal" { faulty += 1 }
            lost = r.sent[start..<faulty].flatMap { Array($0.window) }
            guard let firstLost = lost.min(), let lastLost = lost.max(), firstLost >= 1 else { return nil }
            shift = Double(r.beatTicks[lastLost] - r.beatTicks[firstLost - 1]) / 1024
            firstMoved = lastLost + 1
            (self.r, self.start, self.faulty) = (r, start, faulty)
            arrived = (connection..<r.sent.count).filter { n in
                r.sent[n].arrival != nil && r.sent[n].fault == "normal" && !(start..<faulty).contains(n)
            }
        }

        /// H0's chain time of true beat k (seconds), the beats from `movedFrom` on later by `extra`.
        func chain(_ k: Int, extra: Double = 0, movedFrom: Int = .max) -> Double {
            Double(r.beatTicks[k]) / 1024 - (k >= firstMoved ? shift : 0) + (k >= movedFrom ? extra : 0)
        }

        /// Whether the chain (H0's, with the beats from `movedFrom` on later by `extra`) fits every notification
        /// with RR up to `m` at offset `k`: each holds exactly the beats in its window, none in a window that
        /// arrived empty (but `except`, where a lost beat is the hypothesis).
        func fits(_ k: Double, upTo m: Int, slack: Double, extra: Double = 0, movedFrom: Int = .max,
                  except: Int? = nil) -> Bool {
            let period = r.scenario.period
            for n in arrived where n <= m {
                let low = Double(n) * period - k, high = Double(n + 1) * period - k
                for beat in r.sent[n].window {
                    let c = chain(beat, extra: extra, movedFrom: movedFrom)
                    if !(c > low - slack && c <= high + slack) { return false }
                }
            }
            return emptyWindowsHold(k, upTo: m, slack: slack, extra: extra, movedFrom: movedFrom, except: except)
        }

        /// `fits`' second half: no beat of the chain in a window that arrived empty (but `except`).
        func emptyWindowsHold(_ k: Double, upTo m: Int, slack: Double, extra: Double, movedFrom: Int,
                              except: Int?) -> Bool {
            let period = r.scenario.period
            let beats = r.sent[connection].window.lowerBound..<r.beatTicks.count
            for n in arrived where n <= m && n != except && r.sent[n].window.isEmpty {
                let low = Double(n) * period - k, high = Double(n + 1) * period - k
                let inside = beats.contains { beat in
                    guard !lost.contains(beat) else { return false }
                    let c = chain(beat, extra: extra, movedFrom: movedFrom)
                    return c > low + slack && c <= high - slack
                }
                if inside { return false }
            }
            return true
        }

        /// The offsets in `low...high` at which `emptyWindowsHold`: each beat of the chain rules out the offsets that
        /// put it in a window that arrived empty, `(n·P − c + slack, (n+1)·P − c − slack]`; what is left, in order.
        func offsetsClearOfEmptyWindows(_ low: Double, _ high: Double, upTo m: Int, slack: Double, extra: Double,
                                        movedFrom: Int, except: Int?) -> [ClosedRange<Double>] {
            let period = r.scenario.period
            var ruledOut: [(Double, Double)] = []
            let beats = (r.sent[connection].window.lowerBound..<r.beatTicks.count).filter { !lost.contains($0) }
            for n in arrived where n <= m && n != except && r.sent[n].window.isEmpty {
                for beat in beats {
                    let c = chain(beat, extra: extra, movedFrom: movedFrom)
                    let from = Double(n) * period - c + slack, to = Double(n + 1) * period - c - slack
                    if from < to && from < high && to > low { ruledOut.append((from, to)) }
                }
            }
            var left: [ClosedRange<Double>] = [], at = low
            for (from, to) in ruledOut.sorted(by: { $0.0 < $1.0 }) {
                if from > at { left.append(at...from) }
                at = max(at, to)
            }
            if at < high { left.append(at...high) }
            return left
        }
    }

    static let candidates = stride(from: -1.0, through: 2.0, by: 0.0005).map { $0 }

    public static func verdict(_ r: StrapRecording) -> Verdict? {
        guard let setup = Setup(r) else { return nil }
        func refuted(slack: Double) -> (at: Int?, alive: [Double]) {
            var alive = candidates
            for m in setup.arrived where m >= setup.faulty {
                alive = alive.filter { setup.fits($0, upTo: m, slack: slack) }
                if alive.isEmpty { return (m, []) }
            }
            return (nil, alive)
        }
        let exact = refuted(slack: 0), loose = refuted(slack: Self.slack)
        return Verdict(refutedAt: exact.at, refutedWithSlackAt: loose.at,
                       fits: exact.alive.isEmpty ? nil : exact.alive.min()!...exact.alive.max()!, shift: setup.shift)
    }
}
