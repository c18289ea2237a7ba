/// Beats emitted as placed after a suspect slot because none of the `BeatTimeline.maxHeld` notifications held
/// decided it. A later check may still decide it: when a notification's first beat comes before the previous
/// send time with nothing suspect since the slot (no skipped slot, no notification without RR, no break, no
/// anchor), the chain has been behind since that slot — the only place since where beats could go missing — so
/// the beats were lost there. The stored series is then corrected at the stretch's first beat (flagged, and it
/// and every later beat moved by the chain's jump) instead of flagging the late notification
/// (docs/INGEST.md, "Late decisions").
struct LateStretch: Sendable {
    /// Notifications with RR after the stretch opened that may still decide it: slow hearts' losses become
    /// decidable 5–25 notifications after the fault (docs/INGEST.md, "From the first notification").
    static let span = 25

    /// Timeline ticks of the stretch's first beat as placed.
    var firstTicks: Int
    /// The rule its first beat is flagged with when the loss is found.
    var reason: GapReason
    /// Notifications with RR since it opened.
    var notifications = 0
}

/// A late decision (`LateStretch`): the stored beats from the one at `firstTicks` on move later by `shift` ticks,
/// and that beat is flagged with `reason`. Live watchers got those beats already: the notification that decided
/// it is reported to them with its first beat flagged, as before.
struct LateCorrection: Sendable, Equatable {
    var firstTicks: Int
    var shift: Int
    var reason: GapReason
}
