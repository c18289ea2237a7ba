/// Retry delays: initial, ×factor each failure, capped, with ±jitter. Pure. Used by BlueZ reconnects and
/// `heartd-sync` retries.
public struct Backoff: Sendable {
    public let initial: Double
    public let maximum: Double
    public let factor: Double
    public let jitter: Double
    public private(set) var current: Double

    public init(initial: Double, maximum: Double, factor: Double, jitter: Double) {
        self.initial = initial
        self.maximum = maximum
        self.factor = factor
        self.jitter = jitter
        current = initial
    }

    /// The next delay in seconds; `random` is in 0..<1 (injectable for tests).
    public mutating func next(random: Double = Double.random(in: 0..<1)) -> Double {
        let base = current
        current = min(maximum, current * factor)
        return max(0, base * (1 + jitter * (2 * random - 1)))
    }

    public mutating func reset() { current = initial }
}
