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
/// `c ≤ bound − 2·tolerance` refutes the place, for any K and s. Both are taken with the grid as the model knows it at
/// each check (the grid moves as arrivals come in), so only the difference of send times enters — the grid's period
/// error, not its phase or the offset K.
struct PlaceContest: Sendable {
    /// Notifications with RR after the re-anchor that may still refute the other places (with the strap's grid known
    /// exactly, the listed runs' other place is refuted 5–11 after it: `TimelineHypotheses.places`).
    static let span = 16
    /// Places kept at most; one more closes the contest.
    static let maxPlaces = 4

    /// A slot of the grid and the chain's end there (seconds, on the unmoved chain).
    struct Sample: Sendable {
        var slot: Int
        var chainEnd: Double
    }

    struct Place: Sendable {
        /// The last notification with RR before it (`bound = send(slot) − chainEnd`).
        var before: Sample
        /// The samples after it: `samples[from...]`.
        var from: Int
    }

    /// The stretch as it was when the first place closed it.
    var stretch: LateStretch
    private(set) var places: [Place] = []
    /// The notifications with RR since the first place, on the unmoved chain.
    private var samples: [Sample] = []
    /// The re-anchor that found the chain behind: its jump (ticks, > 0) and the first beat it flagged live.
    private(set) var jump: Int?
    private(set) var decidingTicks: Int?
    /// Notifications with RR since the re-anchor.
    private var sinceJump = 0

    init(stretch: LateStretch) { self.stretch = stretch }

    /// Another notification without RR before the re-anchor, after the notification with RR `before`; false when the
    /// contest must close (too many places, or the re-anchor came already).
    mutating func add(before: Sample) -> Bool {
        guard jump == nil, places.count < Self.maxPlaces else { return false }
        places.append(Place(before: before, from: samples.count))
        return true
    }

    /// The `rr-chain-behind` re-anchor: the chain jumped by `ticks`, and the notification's first beat was flagged.
    mutating func reanchored(jump ticks: Int, firstBeat: Int) -> Bool {
        guard jump == nil, ticks > 0, !places.isEmpty else { return false }
        (jump, decidingTicks) = (ticks, firstBeat)
        return true
    }

    /// A notification with RR ended the chain at `sample` (as placed); false when the contest has run out of
    /// notifications.
    mutating func observe(_ sample: Sample) -> Bool {
        samples.append(Sample(slot: sample.slot,
                              chainEnd: sample.chainEnd - Double(jump ?? 0) / BeatTimeline.ticksPerSecond))
        if jump != nil { sinceJump += 1 }
        return jump == nil ? samples.count <= LateStretch.span : sinceJump <= Self.span
    }

    /// The stored correction once every place but the fault's is refuted after the re-anchor, with the grid's send
    /// times as the model knows them now.
    func correction(tolerance: Double, sendTime: (Int) -> Double?) -> (LateCorrection, until: Int)? {
        guard let jump, let decidingTicks else { return nil }
        func sample(_ s: Sample) -> Double? { sendTime(s.slot).map { $0 - s.chainEnd } }
        let refuted = places.allSatisfy { place in
            guard let bound = sample(place.before) else { return false }
            return samples[place.from...].contains { s in sample(s).map { $0 <= bound - 2 * tolerance } ?? false }
        }
        guard refuted else { return nil }
        return (LateCorrection(firstTicks: stretch.firstTicks, shift: jump, reason: stretch.reason), decidingTicks)
    }
}
