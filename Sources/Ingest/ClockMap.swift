import Foundation
import SourceEvents

/// Maps the session's monotonic seconds to wall-clock dates: fixed while series are open, so dates inside a
/// series keep the monotonic spacing even if the wall clock is changed.
struct ClockMap: Sendable {
    var wall0: Date
    var mono0: Double

    init(_ timestamp: Timestamp) {
        wall0 = timestamp.wall
        mono0 = timestamp.monotonic
    }

    init(wall0: Date, mono0: Double) {
        self.wall0 = wall0
        self.mono0 = mono0
    }

    func date(_ monotonic: Double) -> Date { wall0.addingTimeInterval(monotonic - mono0) }
}
