/// When the reader thread may wait before reading again, trading a bounded delay for fewer thread wake-ups.
///
/// A busy bus (many signals a second: several sensors, or one notifying fast) would otherwise wake the reader
/// once per message, and a wake-up costs far more CPU than handling the message. When the previous wake-up was
/// less than two intervals ago — and at most half a second: above two wake-ups a second — the reader pauses for
/// one interval after handling what it read, and the messages that arrive meanwhile are read and dispatched
/// together. A quiet bus (one sensor at 1/s, even two) never pauses: there the pause would only add its own
/// wake-up. Nothing pauses while a method call waits for its reply.
///
/// The cost: a message on a busy bus may be handled up to one interval after it arrived, so its receive time
/// is that much late. Where nothing else stamps a message (StartNotify values on the bus: libdbus reads 2 KiB
/// at a time, so a socket timestamp would not be per message), `keepingArrivalTimes` only calls the bus busy
/// above 50 wake-ups a second: every sensor stream a host can hold (≈ 10 links at ≤ 4 notifications a second)
/// is then read at once, and its stamps stay good enough for the ingest timeline model (docs/INGEST.md).
public struct ReadBatching: Sendable, Hashable {
    /// The pause; zero turns batching off.
    public var interval: Duration
    /// Wake-ups closer together than this (and than two intervals) mean a busy bus.
    public var busyBelow: Duration

    public init(interval: Duration, busyBelow: Duration = .milliseconds(500)) {
        self.interval = interval
        self.busyBelow = busyBelow
    }

    /// The same pause, taken only above 50 wake-ups a second (20 ms apart).
    public var keepingArrivalTimes: ReadBatching { ReadBatching(interval: interval, busyBelow: .milliseconds(20)) }

    public static let off = ReadBatching(interval: .zero)

    var intervalNanoseconds: UInt64 { Self.nanoseconds(interval) }

    static func nanoseconds(_ d: Duration) -> UInt64 {
        let (s, atto) = d.components
        return s <= 0 && atto <= 0 ? 0 : UInt64(s) * 1_000_000_000 + UInt64(atto / 1_000_000_000)
    }

    public var pauseMilliseconds: Int32 { Int32(clamping: intervalNanoseconds / 1_000_000) }

    /// Whether to pause after a wake-up at `wake` (monotonic ns) when the one before was at `lastWake`.
    public func shouldPause(wake: UInt64, lastWake: UInt64, pendingCalls: Int) -> Bool {
        thresholds.shouldPause(wake: wake, lastWake: lastWake, pendingCalls: pendingCalls)
    }

    /// The same rule with the durations turned into nanoseconds once: a reader's loop takes these before it
    /// starts (reading a `Duration`'s components costs a few hundred instructions, at every wake-up otherwise).
    public var thresholds: Thresholds {
        let ns = intervalNanoseconds
        return Thresholds(pause: ns, busy: min(2 * ns, Self.nanoseconds(busyBelow)))
    }

    public struct Thresholds: Sendable {
        let pause: UInt64
        let busy: UInt64

        /// See `ReadBatching.shouldPause`.
        public func shouldPause(wake: UInt64, lastWake: UInt64, pendingCalls: Int) -> Bool {
            guard pause >= 1_000_000, pendingCalls == 0, lastWake > 0 else { return false }
            return wake &- lastWake < busy
        }
    }
}
