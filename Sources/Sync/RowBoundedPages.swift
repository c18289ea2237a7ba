import HealthModel
import HeartStore

/// Cuts a page of store changes into transactions of bounded size: a day of 1000-beat series is 200 changes but
/// 180,000 expanded rows, and one transaction that large leaves the gateway idle while the server inserts, and the
/// server idle while the gateway decodes. Smaller transactions let `SyncRunner` prepare the next while the server
/// writes the current one (docs/CENTRAL.md, "Measured").
extension ReplicaChanges {
    /// Rows a change adds to the expanded tables: a heartbeat series' beats, a heart-rate series' points; any other
    /// change counts as one.
    static func expandedRows(_ stored: StoredSample) -> Int {
        switch stored.sample {
        case .heartbeatSeries(let h): max(1, h.beats.count)
        case .quantity(let q) where q.type == .heartRate: max(1, q.points.count)
        case .quantity: 1
        }
    }

    var expandedRows: Int { added.reduce(0) { $0 + Self.expandedRows($1) } + deleted.count + sessions.count }

    /// This page as consecutive pages of at most `maxRows` expanded rows each, in anchor order (a change is never
    /// split: one larger than `maxRows` goes alone). Each ends at the anchor of its last change, the last one at
    /// this page's anchor, so delivering them in order moves the delivered anchor exactly as this page would.
    func split(maxRows: Int) -> [ReplicaChanges] {
        guard expandedRows > maxRows else { return [self] }
        // Every change's anchor and rows in anchor order; a page ends before the change that would pass the bound.
        // (A session without an anchor, which no store hands out, goes with the last page.)
        let changes = (added.map { ($0.anchor, Self.expandedRows($0)) } + deleted.map { ($0.anchor, 1) }
            + sessions.compactMap { session in session.anchor.map { ($0, 1) } }).sorted { $0.0 < $1.0 }
        var ends: [Int64] = []
        var rows = 0
        for (index, change) in changes.enumerated() {
            if rows > 0 && rows + change.1 > maxRows {
                ends.append(changes[index - 1].0)
                rows = 0
            }
            rows += change.1
        }
        ends.append(anchor)
        var start = Int64.min
        return ends.map { end in
            defer { start = end }
            let within = { (anchor: Int64) in anchor > start && anchor <= end }
            return ReplicaChanges(added: added.filter { within($0.anchor) }, deleted: deleted.filter { within($0.anchor) },
                                  sessions: sessions.filter { within($0.anchor ?? anchor) }, anchor: end)
        }
    }
}
