/// When a simulated strap sends a notification (`StrapScenario.sender`).
///
/// Most chest straps notify at a steady cadence on their own clock (once a second) with the RR of the beats
/// completed since the previous notification, and without RR when no beat completed. Others notify only when a
/// beat ends: their arrivals are beats, spaced by the RR they carry, and never without RR. heartd's timeline
/// model must decide losses for the first from their first notifications, and never take the second's spacing
/// for lost notifications (docs/INGEST.md, "Per-beat senders").
public enum StrapSender: String, Sendable, Hashable, CaseIterable {
    /// One notification every `period` seconds of the sensor clock (the default).
    case cadence
    /// One notification at every beat, carrying its RR.
    case everyBeat = "every-beat"
    /// One notification at the first beat that ends after each `period` boundary, carrying the RR since the
    /// previous one (1–2 s apart at slow rates; `ReplayStoreRoundTripTests`' stream).
    case firstBeatEachPeriod = "first-beat-each-period"
}

extension StrapSender {
    /// The send times (sensor seconds) and the true beats each notification delivers, for `count` notifications
    /// over beats at `ticks` (1/1024 s; beat 0 starts the first RR), or nil if the beats end first.
    func schedule(count: Int, ticks: [Int], period: Double) -> [(send: Double, window: Range<Int>)]? {
        var out: [(send: Double, window: Range<Int>)] = []
        out.reserveCapacity(count)
        var first = 1
        switch self {
        case .cadence:
            for j in 0..<count {
                let send = Double(j + 1) * period
                var end = first
                while end < ticks.count, Double(ticks[end]) / 1024 <= send { end += 1 }
                guard end < ticks.count else { return nil }
                out.append((send, first..<end))
                first = end
            }
        case .everyBeat:
            guard count < ticks.count else { return nil }
            for k in 1..<count + 1 { out.append((Double(ticks[k]) / 1024, k..<k + 1)) }
        case .firstBeatEachPeriod:
            var boundary = period
            for k in 1..<ticks.count where out.count < count {
                let time = Double(ticks[k]) / 1024
                guard time >= boundary else { continue }
                out.append((time, first..<k + 1))
                first = k + 1
                boundary = ((time / period).rounded(.down) + 1) * period
            }
            guard out.count == count else { return nil }
        }
        return out
    }
}
