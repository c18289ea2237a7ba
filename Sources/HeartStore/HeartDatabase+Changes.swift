import Foundation
import GRDB
import HealthModel

extension HeartDatabase {
    /// The anchor of the latest change (0 for an empty database).
    public func currentAnchor() throws(StoreError) -> Int64 {
        try read { db in try AnchorSequence.current(db) }
    }

    /// How many stored samples were added after `anchor` (without reading them).
    public func addedSampleCount(since anchor: Int64) throws(StoreError) -> Int {
        try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM samples WHERE anchor > ?", arguments: [anchor]) ?? 0
        }
    }

    /// Samples added and deleted after `anchor`, at most `limit` changes in all, oldest first, with the anchor
    /// to pass next time. Pass 0 the first time. When fewer than `limit` changes are returned, the new anchor
    /// is the current one, so a client that is caught up stays caught up.
    public func changes(since anchor: Int64, limit: Int = 1000) throws(StoreError) -> SampleChanges {
        try read { db in
            let page = try ChangePage(since: anchor, limit: limit, columns: SampleRecord.summaryColumns, in: db)
            return SampleChanges(added: try Self.summaries(page.added, in: db), deleted: page.deleted.map(\.uuid),
                                 anchor: page.anchor)
        }
    }
}

/// One page of an anchored change query: sample rows and tombstones after an anchor, merged by anchor and cut
/// at `limit` changes in all. Shared by `changes(since:)` (summaries) and `replicaChanges(since:)` (full rows).
struct ChangePage {
    var added: [SampleRecord] = []
    var deleted: [TombstoneRecord] = []
    var anchor: Int64

    init(since anchor: Int64, limit: Int, columns: String, in db: Database) throws {
        let limit = max(limit, 1)
        let added = try SampleRecord.fetchAll(
            db, sql: "SELECT \(columns) FROM samples WHERE anchor > ? ORDER BY anchor LIMIT ?", arguments: [anchor, limit])
        let deleted = try TombstoneRecord.fetchAll(
            db, sql: "SELECT * FROM tombstones WHERE anchor > ? ORDER BY anchor LIMIT ?", arguments: [anchor, limit])
        var a = 0, d = 0
        var last = anchor
        while self.added.count + self.deleted.count < limit && (a < added.count || d < deleted.count) {
            if d >= deleted.count || (a < added.count && added[a].anchor < deleted[d].anchor) {
                self.added.append(added[a])
                last = added[a].anchor
                a += 1
            } else {
                self.deleted.append(deleted[d])
                last = deleted[d].anchor
                d += 1
            }
        }
        let complete = a == added.count && d == deleted.count && added.count < limit && deleted.count < limit
        self.anchor = complete ? max(anchor, try AnchorSequence.current(db)) : last
    }
}
