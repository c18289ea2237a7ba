import Foundation
import HealthModel
import SeededRandom
import Testing

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
