/// Where "nothing lost" is refuted only at or after a notification that arrived without RR, the beat may have been
/// lost there instead: at a slow heart most such notifications are legitimate (no beat ended in their window), but
/// one that held a beat and dropped its RR looks exactly the same (docs/INGEST.md, "Every case, listed and argued").
extension TimelineHypotheses {
    /// A notification without RR as the place of the loss, instead of the fault.
    public struct Place: Sendable {
        /// The notification (an index into `StrapRecording.sent`).
        public var notification: Int
        /// The notification after which no offset fits this place any more (with the slack); nil: it fits every
        /// arrival to the end of the run.
        public var refutedAt: Int?
        /// When it fits to the end: the offsets K and the lost beat's RR (seconds) that do.
        public var offsets: ClosedRange<Double>?
        public var lostRR: ClosedRange<Double>?
    }

    /// Each notification without RR (contact fine) from the fault to the one at which "nothing lost" stops fitting
    /// with the slack, as the place of the loss: nothing lost at the fault (H0's chain up to it), one beat X lost in
    /// its window, so the beats delivered after it are later by X's RR, s. It fits when one offset K and one s
    /// (a plausible RR, 250–2500 ms) put every delivered beat in its notification's window, X in this one's, and no
    /// beat in a window that arrived empty, all within the slack — the test `verdict` applies to H0. Empty when H0
    /// is not refuted.
    public static func places(_ r: StrapRecording) -> [Place] {
        guard let setup = Setup(r), let end = verdict(r)?.refutedWithSlackAt, let last = setup.arrived.last else { return [] }
        let period = r.scenario.period
        return setup.arrived.filter { $0 >= setup.faulty && $0 <= end && r.sent[$0].window.isEmpty }.map { p in
            let moved = r.sent[p].window.lowerBound
            // The offsets and lost RRs that fit every notification up to `m` (RR every millisecond).
            func alive(upTo m: Int) -> [(k: ClosedRange<Double>, s: Double)] {
                var found: [(k: ClosedRange<Double>, s: Double)] = []
                for s in stride(from: 0.25, through: 2.5, by: 0.001) {
                    // The offsets the beats with RR allow (an interval), and X in this window.
                    let x = setup.chain(moved - 1) + s
                    var low = Double(p) * period - x - slack, high = Double(p + 1) * period - x + slack
                    for n in setup.arrived where n <= m {
                        for beat in r.sent[n].window {
                            let c = setup.chain(beat, extra: s, movedFrom: moved)
                            low = max(low, Double(n) * period - c - slack)
                            high = min(high, Double(n + 1) * period - c + slack)
                        }
                    }
                    guard low < high else { continue }
                    for k in setup.offsetsClearOfEmptyWindows(low, high, upTo: m, slack: slack, extra: s, movedFrom: moved,
                                                              except: p) {
                        found.append((k, s))
                    }
                }
                return found
            }
            let atEnd = alive(upTo: last)
            guard atEnd.isEmpty else {
                return Place(notification: p, refutedAt: nil,
                             offsets: atEnd.map(\.k.lowerBound).min()!...atEnd.map(\.k.upperBound).max()!,
                             lostRR: atEnd.map(\.s).min()!...atEnd.map(\.s).max()!)
            }
            let refuted = setup.arrived.first { $0 > p && alive(upTo: $0).isEmpty }
            return Place(notification: p, refutedAt: refuted ?? last, offsets: nil, lostRR: nil)
        }
    }
}
