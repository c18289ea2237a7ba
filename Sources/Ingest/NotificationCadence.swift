/// A sensor's notification grid, learnt from arrival times (pure; no I/O).
///
/// A strap sends on its own clock at a steady period P; the host sees `send + latency + lateness`, where the
/// lateness (link jitter, the reader's batching) is never negative. So the *lowest* arrivals lie on a line
/// `base + slot·P` (the envelope) and every arrival lies at most `lateSpan` above it. With that line, each arrival
/// gets its slot: `round((arrival − base − lateSpan/2) / P)` is right whenever the lateness spread is below P,
/// twice the margin a comparison of consecutive arrivals has (their difference carries two latenesses).
/// Skipped slots are lost notifications, and `sendTime(slot:)` (up to the constant latency, which the beat
/// timeline learns together with the sensor's detection delay) is free of jitter.
///
/// The line is fitted to the last `window` arrivals through the lowest arrival of each half, so it follows the
/// sensor clock's drift against the host's. The model only locks while the stream is steady: every interval a
/// whole number (≥ 1) of periods within the lateness bound, `lateSpan ≤ maxLateFraction·P`. An arrival that does
/// not fit (earlier than the envelope by more than `maxEarlyFraction·P`, or later than the bound) unlocks it and
/// learning starts over; while unlocked it reports nothing, so the loud rules alone apply.
///
/// **The prior.** Straps notify once a second on their own clock (±100 ppm), so the grid starts from that at the
/// first arrival of a connection: period `priorPeriod`, base at that arrival. While the window is shorter than
/// `matureAfter` the period stays the prior (a fit over a few slots at 400 ms jitter errs far more than 100 ppm)
/// and every arrival must keep the lateness spread within `priorLateFraction·P`, below half a period, so an
/// arrival put in the wrong slot always breaks the bound (its residual is off by a whole period) instead of
/// passing as a skipped slot. An arrival that breaks it refutes the prior for the rest of the connection:
/// learning starts over without it (lock after `lockAfter`, trusted at `matureAfter`). From `matureAfter` on
/// the fitted period replaces the prior.
struct NotificationCadence: Sendable {
    static let window = 64
    static let lockAfter = 9
    /// Arrivals in the window before send times are trusted to compare the chain with: the period's error
    /// shrinks with the span its two envelope points are apart (about 1 ms a slot at 400 ms jitter once the
    /// window holds 64).
    static let matureAfter = 64
    static let maxLateFraction = 0.6
    static let maxEarlyFraction = 0.15
    static let periodRange = 0.2...5.0
    /// The period assumed from the first arrival (seconds).
    static let priorPeriod = 1.0
    /// The lateness spread the prior allows: below half a period, so a wrong slot cannot pass (see above).
    static let priorLateFraction = 0.45
    /// Arrivals after which the prior's envelope counts as established (an arrival undercutting it by more than
    /// `maxEarlyFraction·P` then unlocks; at 400 ms jitter all 16 lowest stay above 0.15 s with p ≈ 0.05 %).
    static let priorSettledAfter = 16

    struct Observation: Sendable, Equatable {
        var slot: Int
        /// Slots skipped since the previous arrival: lost notifications.
        var missed: Int
    }

    private var arrivals: [Double] = []
    private var slots: [Int] = []
    private(set) var period: Double?
    private var base = 0.0
    private(set) var lateSpan = 0.0
    private(set) var isLocked = false
    /// Locked on the prior period (not fitted yet).
    private(set) var onPrior = false
    /// An arrival broke the prior since the last `reset()`: learning goes without it.
    private(set) var priorRefuted = false

    /// Locked, with a window long enough for send times accurate to a few milliseconds over `TimelineModel`'s span.
    var isMature: Bool { isLocked && arrivals.count >= Self.matureAfter }

    /// Send times are good to a few milliseconds over `TimelineModel`'s span: on the prior, or mature.
    var isTrusted: Bool { isLocked && (onPrior || arrivals.count >= Self.matureAfter) }

    /// The envelope's time of `slot`: its send time plus the link's constant minimum latency.
    func sendTime(slot: Int) -> Double? {
        guard isLocked, let period else { return nil }
        return base + Double(slot) * period
    }

    mutating func reset() { self = NotificationCadence() }

    /// Takes one arrival (monotonic seconds, never decreasing); its slot if the grid is locked.
    mutating func observe(_ arrival: Double) -> Observation? {
        guard isLocked, let period, let last = slots.last else { return learn(arrival) }
        let slot = Int(((arrival - base - lateSpan / 2) / period).rounded())
        let residual = arrival - base - Double(slot) * period
        // On the prior the first arrivals need not be the envelope, so an early one may lower it; once
        // `priorSettledAfter` arrived it is established, and earlier than it by more is the early bound again.
        let early = residual >= -Self.maxEarlyFraction * period
        let fits = onPrior
            ? max(lateSpan, residual) - min(0, residual) <= Self.priorLateFraction * period
                && (early || arrivals.count < Self.priorSettledAfter)
            : early && residual <= Self.maxLateFraction * period
        guard slot > last, fits else {
            // Unlocked: the prior is refuted for this connection if it was in use or was already.
            let refuted = priorRefuted || onPrior
            reset()
            priorRefuted = refuted
            return learn(arrival)
        }
        append(arrival, slot: slot)
        if onPrior, arrivals.count >= Self.matureAfter { onPrior = false }
        fit()
        return Observation(slot: slot, missed: slot - last - 1)
    }

    private mutating func append(_ arrival: Double, slot: Int) {
        arrivals.append(arrival)
        slots.append(slot)
        if arrivals.count > Self.window {
            arrivals.removeFirst(arrivals.count - Self.window)
            slots.removeFirst(slots.count - Self.window)
        }
    }

    /// Before the lock: every arrival is the next slot until the window is long enough to try a fit.
    private mutating func learn(_ arrival: Double) -> Observation? {
        if !priorRefuted && arrivals.isEmpty {
            append(arrival, slot: 0)
            (period, base, lateSpan, isLocked, onPrior) = (Self.priorPeriod, arrival, 0, true, true)
            return Observation(slot: 0, missed: 0)
        }
        append(arrival, slot: (slots.last ?? -1) + 1)
        guard arrivals.count >= Self.lockAfter else { return nil }
        let gaps = zip(arrivals, arrivals.dropFirst()).map { $1 - $0 }.sorted()
        let median = gaps[gaps.count / 2]
        guard Self.periodRange.contains(median) else { return nil }
        // Whole periods between arrivals, never zero: a burst of arrivals is not a steady sensor.
        var slot = 0
        var assigned = [0]
        for (a, b) in zip(arrivals, arrivals.dropFirst()) {
            let n = Int(((b - a) / median).rounded())
            guard n >= 1 else { return nil }
            slot += n
            assigned.append(slot)
        }
        slots = assigned
        period = median
        fit()
        fit()
        guard let period, Self.periodRange.contains(period), lateSpan <= Self.maxLateFraction * period else {
            self.period = nil
            return nil
        }
        isLocked = true
        let missed = slots.count >= 2 ? slots[slots.count - 1] - slots[slots.count - 2] - 1 : 0
        return Observation(slot: slot, missed: missed)
    }

    /// The line through the lowest arrival of each half of the window; `lateSpan` is the highest arrival above it.
    /// Runs for every arrival, so it allocates nothing.
    private mutating func fit() {
        guard let current = period else { return }
        guard !onPrior, arrivals.count >= 4 else {
            envelope(current)
            return
        }
        let half = arrivals.count / 2
        func lowest(_ range: Range<Int>) -> Int {
            var best = range.lowerBound, low = Double.infinity
            for k in range {
                let r = arrivals[k] - Double(slots[k]) * current
                if r < low { (best, low) = (k, r) }
            }
            return best
        }
        let i = lowest(0..<half), j = lowest(half..<arrivals.count)
        if slots[j] - slots[i] >= 4 { period = (arrivals[j] - arrivals[i]) / Double(slots[j] - slots[i]) }
        envelope(period ?? current)
    }

    /// `base` and `lateSpan` for period `p`: the lowest arrival's line and the highest arrival above it.
    private mutating func envelope(_ p: Double) {
        var low = Double.infinity, high = -Double.infinity
        for k in arrivals.indices {
            let r = arrivals[k] - Double(slots[k]) * p
            low = min(low, r)
            high = max(high, r)
        }
        base = low
        lateSpan = high - low
    }
}
