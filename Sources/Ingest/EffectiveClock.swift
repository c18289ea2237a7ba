import SourceEvents

/// A device session's time: the source's monotonic seconds plus a shift that keeps them from ever going backwards
/// (a replay file whose time goes back, or a clock change, is re-anchored), and what each arrival's step means
/// for the beat chain. Pure: the session acts on the step (`DeviceSession.advanceClock`).
struct EffectiveClock: Sendable {
    /// What happened between the last arrival and this one.
    enum Step: Equatable, Sendable {
        /// The first arrival, or a normal step (a step back within the tolerance counts as none: time stood still).
        case steady
        /// Longer than the gap threshold: beats may be missing.
        case gap
        /// Longer than the idle timeout: the open series end.
        case idle
        /// Back by more than the tolerance from `last`; `reanchor` must say where time continues.
        case backwards(last: Double)
    }

    /// Added to the source's monotonic time; grows at each re-anchoring.
    private(set) var shift = 0.0
    /// The effective time of the last arrival (`nil` before the first).
    private(set) var lastArrival: Double?

    /// `t` as effective time, never before the last arrival.
    func effective(_ t: Timestamp) -> Double {
        max(t.monotonic + shift, lastArrival ?? -.infinity)
    }

    /// `t` shifted, not clamped (a tick compares it with the last arrival).
    func shifted(_ t: Timestamp) -> Double {
        t.monotonic + shift
    }

    /// An arrival at `at`: its effective time and the step from the last one. After `.backwards` the arrival is
    /// not taken until `reanchor` says where time continues.
    mutating func advance(to at: Timestamp, settings: IngestSettings) -> (now: Double, step: Step) {
        let now = at.monotonic + shift
        var step = Step.steady
        if let last = lastArrival {
            if now < last {
                // Jitter in a recorded clock (a little back): time stood still for this event only (no lasting
                // shift, which would accumulate).
                guard last - now > settings.clockTolerance else { return (last, .steady) }
                return (now, .backwards(last: last))
            }
            if now - last > settings.idleTimeout {
                step = .idle
            } else if now - last > settings.gapThreshold {
                step = .gap
            }
        }
        lastArrival = now
        return (now, step)
    }

    /// Time went back to `now` (effective, before the shift grows): it continues from `target` instead, which
    /// becomes the last arrival.
    mutating func reanchor(from now: Double, to target: Double) {
        shift += target - now
        lastArrival = target
    }
}
