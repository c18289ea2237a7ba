import Foundation
import Posix

/// When something happened, on two clocks: the wall clock (UTC, what samples are dated with) and a monotonic
/// clock in seconds (what intervals inside a series are measured with, so a wall-clock change does not corrupt
/// beat spacing). Live sources use CLOCK_MONOTONIC; a replay file uses its own `t` for both.
public struct Timestamp: Sendable, Hashable, Codable {
    /// Wall-clock time.
    public var wall: Date
    /// Monotonic seconds (arbitrary origin; only differences matter).
    public var monotonic: Double

    public init(wall: Date, monotonic: Double) {
        self.wall = wall
        self.monotonic = monotonic
    }

    /// A timestamp whose wall clock and monotonic clock are both `unixSeconds` (replay files, tests).
    public init(unixSeconds: Double) {
        self.init(wall: Date(timeIntervalSince1970: unixSeconds), monotonic: unixSeconds)
    }

    /// The current wall clock and CLOCK_MONOTONIC.
    public static func now() -> Timestamp {
        Timestamp(wall: Date(), monotonic: MonotonicClock.now())
    }

    /// This timestamp moved forward by `seconds` on both clocks.
    public func advanced(by seconds: Double) -> Timestamp {
        Timestamp(wall: wall.addingTimeInterval(seconds), monotonic: monotonic + seconds)
    }
}
