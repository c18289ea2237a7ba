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
        var pages: [ReplicaChanges] = []
        var current = ReplicaChanges(added: [], deleted: [], sessions: [], anchor: 0)
        var rows = 0
        var a = 0, d = 0, s = 0
        while true {
            let next: [Int64?] = [added[safe: a]?.anchor, deleted[safe: d]?.anchor, sessions[safe: s]?.anchor ?? nil]
            guard let smallest = next.compactMap({ $0 }).min() else { break }
            let size = next[0] == smallest ? Self.expandedRows(added[a]) : 1
            if rows > 0 && rows + size > maxRows {
                pages.append(current)
                current = ReplicaChanges(added: [], deleted: [], sessions: [], anchor: 0)
                rows = 0
            }
            if next[0] == smallest {
                current.added.append(added[a])
                a += 1
            } else if next[1] == smallest {
                current.deleted.append(deleted[d])
                d += 1
            } else {
                current.sessions.append(sessions[s])
                s += 1
            }
            current.anchor = smallest
            rows += size
        }
        // Sessions without an anchor (none come from a store) would be left out above: keep them in the last page.
        current.sessions += sessions[s...]
        current.anchor = anchor
        pages.append(current)
        return pages
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
