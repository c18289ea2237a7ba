/// Beats emitted as placed after a suspect slot because none of the `BeatTimeline.maxHeld` notifications held
/// decided it. A later check may still decide it: when a notification's first beat comes before the previous
/// send time with nothing suspect since the slot (no skipped slot, no break, no anchor), the chain has been behind
/// since that slot or since a notification without RR at a slow heart rate that came after it (each one's hold
/// passed in full, so it is a candidate too) — the only places since where beats could go missing. The stored
/// series is then corrected at the first beat after the place that fits (`LossPlacement`; flagged, and it and
/// every later beat moved by the chain's jump) instead of flagging the late notification (docs/INGEST.md, "Late
/// decisions").
struct LateStretch: Sendable {
    /// Notifications with RR after the stretch opened that may still decide it: slow hearts' losses become
    /// decidable 5–25 notifications after the fault (docs/INGEST.md, "From the first notification").
    static let span = 25

    /// Where the beats may have been lost, oldest first: the suspect slot the stretch opened at, then every
    /// notification without RR at a slow heart rate whose hold passed in full since.
    var candidates: [LossCandidate]
    /// Notifications with RR since it opened.
    var notifications = 0

    /// The stretch after one more notification with RR; nil past `span`.
    func counted() -> LateStretch? {
        var next = self
        next.notifications += 1
        return next.notifications > Self.span ? nil : next
    }

    /// The stretch a hold that passed in full leaves: `open` with one more candidate place, or a new one; either
    /// way open for `span` more notifications with RR, as a stretch opened at the new place would be.
    init(_ candidate: LossCandidate, extending open: LateStretch?) {
        candidates = (open?.candidates ?? []) + [candidate]
    }
}

/// A place where a late stretch's beats may have been lost: the slot(s) without RR just before the notification
/// at `slot`, whose first beat (as placed) is at `firstTicks`.
struct LossCandidate: Sendable, Equatable {
    /// Timeline ticks of the first beat after the place, as placed.
    var firstTicks: Int
    /// The grid slot of that beat's notification (nil: unknown, the place cannot be evaluated).
    var slot: Int?
    /// The rule that beat is flagged with when the loss is found there.
    var reason: GapReason
}

/// A late decision (`LateStretch`): the stored beats from the first beat after the place that lost them on move
/// later by `shift` ticks, and that beat is flagged with the place's rule; the place is the only candidate, or
/// the one `LossPlacement` finds (the latest when it cannot tell, as before). Live watchers got those beats
/// already: the notification that decided it is reported to them with its first beat flagged, as before.
struct LateCorrection: Sendable, Equatable {
    var candidates: [LossCandidate]
    var shift: Int
    /// The deciding notification's slot when a notification without RR at a slow heart rate came just before it:
    /// that place is a candidate too, the latest (found there, the stored stretch stays and this notification's
    /// first beat is flagged `rr-chain-behind`, as without a stretch).
    var deciding: Int? = nil
}
