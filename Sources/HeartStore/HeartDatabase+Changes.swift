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

    /// Samples added and deleted and sessions started or stopped after `anchor`, at most `limit` changes in all, oldest first, with the anchor
    /// to pass next time. Pass 0 the first time. When fewer than `limit` changes are returned, the new anchor
    /// is the current one, so a client that is caught up stays caught up.
    public func changes(since anchor: Int64, limit: Int = 1000) throws(StoreError) -> SampleChanges {
        let limit = max(limit, 1)
        return try read { db in
            let added = try SampleRecord.fetchAll(
                db, sql: "SELECT \(SampleRecord.summaryColumns) FROM samples WHERE anchor > ? ORDER BY anchor LIMIT ?",
                arguments: [anchor, limit])
            let deleted = try TombstoneRecord.fetchAll(
                db, sql: "SELECT * FROM tombstones WHERE anchor > ? ORDER BY anchor LIMIT ?", arguments: [anchor, limit])
            let sessions: [Session] = try db.tableExists("sessions") ? try SessionRecord.fetchAll(
                db, sql: "SELECT * FROM sessions WHERE anchor > ? ORDER BY anchor LIMIT ?", arguments: [anchor, limit]
            ).map(\.session) : []
            // Merge the three by anchor and keep the first `limit` changes.
            enum Change { case added(SampleRecord), deleted(UUID), session(Session) }
            let merged = (added.map { ($0.anchor, Change.added($0)) } + deleted.map { ($0.anchor, Change.deleted($0.uuid)) }
                + sessions.map { ($0.anchor ?? 0, Change.session($0)) }).sorted { $0.0 < $1.0 }
            let taken = merged.prefix(limit)
            var takenAdded: [SampleRecord] = [], takenDeleted: [UUID] = [], takenSessions: [Session] = []
            for (_, change) in taken {
                switch change {
                case .added(let r): takenAdded.append(r)
                case .deleted(let uuid): takenDeleted.append(uuid)
                case .session(let session): takenSessions.append(session)
                }
            }
            let complete = merged.count == taken.count && added.count < limit && deleted.count < limit
                && sessions.count < limit
            let newAnchor = complete ? max(anchor, try AnchorSequence.current(db)) : (taken.last?.0 ?? anchor)
            return SampleChanges(added: try Self.summaries(takenAdded, in: db), deleted: takenDeleted,
                                 sessions: takenSessions, anchor: newAnchor)
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
