/// A notification whose beats wait for a later one: the chain before it, its RR values (all plausible), its slot
/// on the grid, and its beats as placed if nothing is missing.
struct HeldNotification: Sendable {
    var position: Int
    var lastEmitted: Int?
    var rr: [UInt16]
    var arrival: Double
    var total: Int
    /// What may have lost beats just before it: set on the first one held only (later ones follow it slot by slot).
    var suspect: GapReason?
    var slot: Int?
    var beats: [TimelineBeat]
}
