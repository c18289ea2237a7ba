import Foundation

/// RMSSD over the last `window` of a live beat stream, kept up to date beat by beat: the successive differences
/// of RR intervals whose later beat is inside the window. As everywhere in heartd, no RR interval spans a gap: a
/// beat flagged `precededByGap` (or one that does not come after the previous beat) starts a new chain.
///
/// Pure and O(1) amortised per beat: the network services feed it each device's `beats` events.
public struct RollingRMSSD: Sendable {
    public let window: TimeInterval
    private var lastBeat: Date?
    private var lastRRMs: Double?
    /// (time of the difference's later beat, squared difference), oldest first; `head` skips expired entries.
    private var differences: [(at: Date, squared: Double)] = []
    private var head = 0
    private var sum = 0.0

    public init(window: TimeInterval = 60) {
        self.window = window
    }

    /// The next beat; `gap`: beats may be missing before it.
    public mutating func add(beat time: Date, gap: Bool) {
        defer { lastBeat = time }
        guard !gap, let previous = lastBeat, time > previous else {
            lastRRMs = nil
            return
        }
        let rr = time.timeIntervalSince(previous) * 1000
        defer { lastRRMs = rr }
        guard let last = lastRRMs else { return }
        let squared = (rr - last) * (rr - last)
        differences.append((time, squared))
        sum += squared
        expire(before: time.addingTimeInterval(-window))
    }

    /// The next beat starts a new chain (the device disconnected).
    public mutating func breakChain() {
        lastBeat = nil
        lastRRMs = nil
    }

    /// Successive differences inside the window ending at `now`.
    public mutating func differenceCount(at now: Date) -> Int {
        expire(before: now.addingTimeInterval(-window))
        return differences.count - head
    }

    /// RMSSD in ms of the window ending at `now`; nil with fewer than `minimumDifferences` differences in it.
    public mutating func rmssdMs(at now: Date, minimumDifferences: Int = 5) -> Double? {
        let n = differenceCount(at: now)
        guard n >= max(1, minimumDifferences) else { return nil }
        return (max(sum, 0) / Double(n)).squareRoot()
    }

    private mutating func expire(before cutoff: Date) {
        while head < differences.count, differences[head].at <= cutoff {
            sum -= differences[head].squared
            head += 1
        }
        if head == differences.count {
            differences.removeAll(keepingCapacity: true)
            head = 0
            sum = 0
        } else if head > 256, head * 2 > differences.count {
            differences.removeFirst(head)
            head = 0
        }
    }
}
