/// A beat on the timeline: integer ticks of 1/1024 s since the timeline origin, and the rule that flagged it.
struct TimelineBeat: Sendable, Hashable {
    var ticks: Int
    var gap: GapReason?
}

/// What one notification's RR values produced.
struct TimelineResult: Sendable {
    var beats: [TimelineBeat] = []
    /// RR values dropped as implausible (0, below `rrMinMs`, above `rrMaxMs`).
    var implausible = 0
    /// Beats dropped because they would not come after the previous beat.
    var overlapping = 0
    /// The chain was (re-)anchored to the arrival: a grid-to-chain offset learnt before is void.
    var anchored = false
    /// A stretch emitted undecided was decided late: the stored beats move and are flagged (`LateStretch`).
    var correction: LateCorrection?
    /// The chain was found behind with nothing suspect since the previous notification and re-anchored
    /// (`rr-chain-behind`): how far it jumped, in ticks (`PlaceContest`).
    var behindJump: Int?
}
