/// Reconnect delays: initial, ×factor each failure, capped, with ±jitter. Pure.
struct Backoff: Sendable {
    let initial: Double
    let maximum: Double
    let factor: Double
    let jitter: Double
    private(set) var current: Double

    init(initial: Double, maximum: Double, factor: Double, jitter: Double) {
        self.initial = initial
        self.maximum = maximum
        self.factor = factor
        self.jitter = jitter
        current = initial
    }

    /// The next delay in seconds; `random` is in 0..<1 (injectable for tests).
    mutating func next(random: Double = Double.random(in: 0..<1)) -> Double {
        let base = current
        current = min(maximum, current * factor)
        return max(0, base * (1 + jitter * (2 * random - 1)))
    }

    mutating func reset() { current = initial }
}
