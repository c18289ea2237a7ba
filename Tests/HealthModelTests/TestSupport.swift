import Foundation
import Testing
import HealthModel

/// SplitMix64: a small seeded generator so random tests are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

struct FixtureError: Error { let reason: String }

/// A fixed reference instant so tests do not depend on the clock.
let t0 = Date(timeIntervalSinceReferenceDate: 800_000_000)

func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }

func point(_ value: Double, _ start: TimeInterval, _ end: TimeInterval) -> QuantityPoint {
    QuantityPoint(value: value, start: at(start), end: at(end))
}

/// |a − b| ≤ tolerance · max(1, |b|).
func close(_ a: Double?, _ b: Double?, _ tolerance: Double = 1e-9) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (let x?, let y?): return abs(x - y) <= tolerance * max(1, abs(y))
    default: return false
    }
}
