/// When `PipelineCore`'s live timer must tick (there is no periodic tick): the real clock (CLOCK_MONOTONIC
/// seconds), when on it the last event, checkpoint and sink retry happened, and the deadline last told the
/// observer (`onDeadline`).
struct LiveSchedule {
    let clock: @Sendable () -> Double
    var lastEvent: Double?
    var lastCheckpoint: Double?
    var lastRetry: Double?
    private var published: Double??
    var onDeadline: (@Sendable (Double?) -> Void)? {
        didSet { published = nil }
    }

    init(clock: @escaping @Sendable () -> Double) {
        self.clock = clock
    }

    /// When the timer must tick (real CLOCK_MONOTONIC seconds; `nil`: not before the next event): an idle
    /// timeout or a maximum duration (`sessionsDue`), the checkpoint of a stream that paused (`changed`: an open
    /// series changed since the last one) — two intervals after its last value, so a sensor notifying about once
    /// per interval does not wake the timer between its values —, or a retry of a failing sink (`sinkPending`:
    /// something waits to be saved) one second on.
    func deadline(sessionsDue: Double?, interval: Double, changed: Bool, sinkPending: Bool) -> Double? {
        var deadline = sessionsDue ?? .infinity
        if changed {
            let due = lastCheckpoint.map { $0 + interval } ?? 0
            deadline = min(deadline, max(due, (lastEvent ?? 0) + 2 * interval))
        }
        if sinkPending {
            deadline = min(deadline, max(lastRetry ?? 0, lastEvent ?? 0) + 1)
        }
        return deadline.isFinite ? deadline : nil
    }

    /// Tells the observer the `next` deadline (`force`: always). Otherwise skipped when the deadline did not move
    /// or moved later by less than 0.2 s — the timer then wakes a little early, and the tick publishes again —
    /// which at 1000 values a second spares the timer's lock on most of them.
    mutating func publish(_ next: Double?, force: Bool) {
        if !force, let last = published {
            switch (last, next) {
            case (nil, nil): return
            case (let l?, let n?) where n >= l && n - l < 0.2: return
            case (_?, nil): return  // nothing due any more: an armed time firing early is harmless
            default: break
            }
        }
        published = .some(next)
        onDeadline?(next)
    }
}
