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
/// is that much late.
public struct ReadBatching: Sendable, Hashable {
    /// The pause; zero turns batching off.
    public var interval: Duration

    public init(interval: Duration) { self.interval = interval }

    public static let off = ReadBatching(interval: .zero)

    var intervalNanoseconds: UInt64 {
        let (s, atto) = interval.components
        return s <= 0 && atto <= 0 ? 0 : UInt64(s) * 1_000_000_000 + UInt64(atto / 1_000_000_000)
    }

    public var pauseMilliseconds: Int32 { Int32(clamping: intervalNanoseconds / 1_000_000) }

    /// Whether to pause after a wake-up at `wake` (monotonic ns) when the one before was at `lastWake`.
    public func shouldPause(wake: UInt64, lastWake: UInt64, pendingCalls: Int) -> Bool {
        let ns = intervalNanoseconds
        guard ns >= 1_000_000, pendingCalls == 0, lastWake > 0 else { return false }
        return wake &- lastWake < min(2 * ns, Self.busyBelowNanoseconds)
    }

    /// Wake-ups closer together than this (and than two intervals) mean a busy bus.
    static let busyBelowNanoseconds: UInt64 = 500_000_000
}
