/// A late stretch (`LateStretch`) closed by a notification without RR at a slow heart rate: that notification may
/// have lost the beat instead (docs/INGEST.md, "Late decisions"). The live `rr-chain-behind` re-anchor still flags
/// the notification that finds the chain behind; the stored stretch moves to the fault's place only when a later
/// arrival refutes every other place.
///
/// A place R (the first notification without RR after the last one with RR, whose sample is `bound`) holds the lost
/// beat X only if X comes after the send before R: on the unmoved chain X = b + s (b the last beat before R, s its
/// RR) and `send(R−1) − K < b + s`, so `s + K > bound − tolerance` with `bound = send(R−1) − b`. Every beat delivered
/// after R then lies s later than on the unmoved chain and at most at its notification's send: `s + K ≤ c + tolerance`
/// for each later notification's sample `c = send(n) − chainEnd(n)` on the unmoved chain. One sample with
/// `c ≤ bound − 2·tolerance` refutes the place, for any K and s: only the grid's period error enters (both are
/// differences of send times and chain times), not its phase or the offset K.
struct PlaceContest: Sendable {
    /// Notifications with RR after the re-anchor that may still refute the other places: the 12 runs need up to 11.
    static let span = 16
    /// Places kept at most; one more closes the contest.
    static let maxPlaces = 4

    struct Place: Sendable {
        /// `send(R−1) − b` on the unmoved chain (seconds).
        var bound: Double
        /// The lowest sample of the notifications with RR after it, on the unmoved chain.
        var lowest = Double.infinity
    }

    /// The stretch as it was when the first place closed it.
    var stretch: LateStretch
    private(set) var places: [Place] = []
    /// The re-anchor that found the chain behind: its jump (ticks, > 0) and the first beat it flagged live.
    private(set) var jump: Int?
    private(set) var decidingTicks: Int?
    /// Notifications with RR since the stretch opened its contest (before the re-anchor) or since the re-anchor.
    private var notifications = 0

    init(stretch: LateStretch) { self.stretch = stretch }

    /// Another notification without RR before the re-anchor; false when the contest must close (too many places,
    /// or the re-anchor came already: a place after it cannot have lost the beat behind it).
    mutating func add(bound: Double) -> Bool {
        guard jump == nil, places.count < Self.maxPlaces else { return false }
        places.append(Place(bound: bound))
        return true
    }

    /// The `rr-chain-behind` re-anchor: the chain jumped by `ticks`, and the notification's first beat was flagged.
    mutating func reanchored(jump ticks: Int, firstBeat: Int) -> Bool {
        guard jump == nil, ticks > 0, !places.isEmpty else { return false }
        (jump, decidingTicks, notifications) = (ticks, firstBeat, 0)
        return true
    }

    /// A notification with RR ended the chain with `sample` (`send − chainEnd`, seconds, as placed); false when the
    /// contest has run out of notifications.
    mutating func observe(sample: Double) -> Bool {
        let unmoved = sample + Double(jump ?? 0) / BeatTimeline.ticksPerSecond
        for k in places.indices { places[k].lowest = min(places[k].lowest, unmoved) }
        notifications += 1
        return notifications <= (jump == nil ? LateStretch.span : Self.span)
    }

    /// The stored correction once every place but the fault's is refuted after the re-anchor.
    func correction(tolerance: Double) -> (LateCorrection, until: Int)? {
        guard let jump, let decidingTicks,
              places.allSatisfy({ $0.lowest <= $0.bound - 2 * tolerance }) else { return nil }
        return (LateCorrection(firstTicks: stretch.firstTicks, shift: jump, reason: stretch.reason), decidingTicks)
    }
}
