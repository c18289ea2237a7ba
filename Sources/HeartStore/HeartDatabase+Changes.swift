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
        let list = try changeList(since: anchor, limit: limit)
        var changes = SampleChanges(added: [], deleted: [], sessions: [], anchor: list.anchor)
        for change in list.changes {
            switch change {
            case .added(let summary): changes.added.append(summary)
            case .deleted(let uuid, _, _): changes.deleted.append(uuid)
            case .session(let session): changes.sessions.append(session)
            }
        }
        return changes
    }

    /// The changes of `changes(since:limit:)` one by one in anchor order, each with its own anchor (for a push
    /// subscriber that resumes from the last change it handled), and the anchor to pass next time.
    public func changeList(since anchor: Int64, limit: Int = 1000) throws(StoreError) -> ChangeList {
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
            let merged = (try Self.summaries(added, in: db).map { StoreChange.added($0) }
                + deleted.map { StoreChange.deleted(uuid: $0.uuid, type: $0.type, anchor: $0.anchor) }
                + sessions.map { StoreChange.session($0) }).sorted { $0.anchor < $1.anchor }
            let taken = Array(merged.prefix(limit))
            let complete = merged.count == taken.count && added.count < limit && deleted.count < limit
                && sessions.count < limit
            let newAnchor = complete ? max(anchor, try AnchorSequence.current(db)) : (taken.last?.anchor ?? anchor)
            return ChangeList(changes: taken, anchor: newAnchor)
        }
    }
}

/// One change in the store, with the anchor it was saved with.
public enum StoreChange: Sendable, Hashable {
    /// A sample saved (its summary as stored).
    case added(SampleSummary)
    /// A sample or session deleted (`type`: its type identifier, `Session.typeIdentifier` for a session).
    case deleted(uuid: UUID, type: String, anchor: Int64)
    /// A session started or stopped, as it is now.
    case session(Session)

    public var anchor: Int64 {
        switch self {
        case .added(let summary): summary.anchor
        case .deleted(_, _, let anchor): anchor
        case .session(let session): session.anchor ?? 0
        }
    }
}

/// A page of changes in anchor order and the anchor to pass next time (the current one when the page is not full).
public struct ChangeList: Sendable, Hashable {
    public var changes: [StoreChange]
    public var anchor: Int64
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
