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

    /// Locked, with a window long enough for send times accurate to a few milliseconds over `TimelineModel`'s span.
    var isMature: Bool { isLocked && arrivals.count >= Self.matureAfter }

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
        guard slot > last, residual >= -Self.maxEarlyFraction * period,
              residual <= Self.maxLateFraction * period else {
            reset()
            return learn(arrival)
        }
        append(arrival, slot: slot)
        if residual < 0 { base += residual }
        lateSpan = max(lateSpan, residual)
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
        guard let current = period, arrivals.count >= 4 else { return }
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
        let p = period ?? current
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
