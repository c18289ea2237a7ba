/// Which place of a late stretch lost its beats (docs/INGEST.md, "Late decisions"): the suspect slot the stretch
/// opened at, or a notification without RR at a slow heart rate after it — each may have lost them. Pure.
///
/// Every notification with RR holds exactly the beats of its window `(send(n−1) − K, send(n) − K]` on the chain's
/// scale, for one grid-to-chain offset K. The chain as placed is right up to the place that lost the beats and
/// behind by their span s from there on, so the notifications before a candidate place must fit one K, those from
/// it on (the deciding one included) one K + s with s > 0, and the last lost beat — the chain end before the
/// place, moved by s — must fall in the windows of the place's silent slots, after the previous notification's
/// send and at most the last silent slot's. The span s is not taken from the arrival (the re-anchor carries the
/// deciding notification's lateness, up to 400 ms): it is free. A candidate fits when both offsets exist within
/// `tolerance` (the check's `sendTimeTolerance`); the place is decided when exactly one candidate fits — a loss
/// within the tolerance of a window edge fits both and stays undecided.
struct LossPlacement: Sendable {
    /// A notification with RR on the chain as placed before the decision: its grid slot and the chain times
    /// (seconds) of its first and last beat.
    struct Note: Sendable, Equatable {
        var slot: Int
        var first: Double
        var last: Double
    }

    /// The chain's notifications with RR since it was anchored, oldest first, the deciding one last.
    var notes: [Note]
    var tolerance: Double

    /// The index of the only candidate that fits, given each candidate's slot (that of the first notification
    /// with RR after its silent slots) and the grid's send times; nil when none or several fit, or one cannot be
    /// evaluated (its notifications are not among `notes`, or the grid has no send time for a slot).
    func place(_ slots: [Int?], send: (Int) -> Double?) -> Int? {
        var fitting: [Int] = []
        for (index, slot) in slots.enumerated() {
            guard let slot, let fits = fits(from: slot, send: send) else { return nil }
            if fits { fitting.append(index) }
        }
        return fitting.count == 1 ? fitting.first : nil
    }

    /// Whether beats lost just before the notification at `slot` (and nowhere else) fit every note; nil when it
    /// cannot be evaluated.
    func fits(from slot: Int, send: (Int) -> Double?) -> Bool? {
        guard let previous = notes.last(where: { $0.slot < slot }), notes.contains(where: { $0.slot == slot }),
              let after = send(previous.slot), let through = send(slot - 1) else { return nil }
        var before = OffsetBounds(), behind = OffsetBounds()
        for note in notes {
            guard let start = send(note.slot - 1), let end = send(note.slot) else { return nil }
            if note.slot < slot {
                before.add(lower: start - note.first, upper: end - note.last)
            } else {
                behind.add(lower: start - note.first, upper: end - note.last)
            }
        }
        // The last lost beat, at `previous.last + s`, inside the silent slots' windows: a bound on K + s.
        behind.add(lower: after - previous.last, upper: through - previous.last)
        return before.lower < before.upper + tolerance && behind.lower < behind.upper + tolerance
            && before.lower < behind.upper + tolerance
    }

    /// The offsets that satisfy `lower < K ≤ upper` for every bound added.
    private struct OffsetBounds {
        var lower = -Double.infinity
        var upper = Double.infinity

        mutating func add(lower: Double, upper: Double) {
            self.lower = max(self.lower, lower)
            self.upper = min(self.upper, upper)
        }
    }
}
