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

    /// Samples added and deleted and sessions started or stopped after `anchor`, at most `limit` changes in all,
    /// oldest first, with the anchor to pass next time. Pass 0 the first time. When fewer than `limit` changes are
    /// returned, the new anchor is the current one, so a client that is caught up stays caught up.
    public func changes(since anchor: Int64, limit: Int = 1000) throws(StoreError) -> SampleChanges {
        try read { db in
            let page = try ChangePage(since: anchor, limit: limit, columns: SampleRecord.summaryColumns, in: db)
            return SampleChanges(added: try Self.summaries(page.added, in: db), deleted: page.deleted.map(\.uuid),
                                 sessions: page.sessions, anchor: page.anchor)
        }
    }

    /// The changes of `changes(since:limit:)` one by one in anchor order, each with its own anchor (for a push
    /// subscriber that resumes from the last change it handled), and the anchor to pass next time.
    public func changeList(since anchor: Int64, limit: Int = 1000) throws(StoreError) -> ChangeList {
        try read { db in
            let page = try ChangePage(since: anchor, limit: limit, columns: SampleRecord.summaryColumns, in: db)
            let changes = (try Self.summaries(page.added, in: db).map { StoreChange.added($0) }
                + page.deleted.map { StoreChange.deleted(uuid: $0.uuid, type: $0.type, anchor: $0.anchor) }
                + page.sessions.map { StoreChange.session($0) }).sorted { $0.anchor < $1.anchor }
            return ChangeList(changes: changes, anchor: page.anchor)
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

/// One page of an anchored change query: sample rows, sessions, people and tombstones after an anchor, merged by
/// anchor and cut at `limit` changes in all. The one change feed behind `changes(since:)` (summaries; people are
/// left out there) and `replicaChanges(since:)` (full rows).
struct ChangePage {
    var added: [SampleRecord] = []
    var deleted: [TombstoneRecord] = []
    var sessions: [Session] = []
    var people: [Person] = []
    var anchor: Int64

    init(since anchor: Int64, limit: Int, columns: String, in db: Database) throws {
        let limit = max(limit, 1)
        let added = try SampleRecord.fetchAll(
            db, sql: "SELECT \(columns) FROM samples WHERE anchor > ? ORDER BY anchor LIMIT ?", arguments: [anchor, limit])
        let deleted = try TombstoneRecord.fetchAll(
            db, sql: "SELECT * FROM tombstones WHERE anchor > ? ORDER BY anchor LIMIT ?", arguments: [anchor, limit])
        // A store older than sessions opened read-only has no table.
        let sessions: [Session] = try db.tableExists("sessions") ? try SessionRecord.fetchAll(
            db, sql: "SELECT * FROM sessions WHERE anchor > ? ORDER BY anchor LIMIT ?", arguments: [anchor, limit]
        ).map(\.session) : []
        let people: [Person] = try db.tableExists("people") ? try PersonRecord.fetchAll(
            db, sql: "SELECT * FROM people WHERE anchor > ? ORDER BY anchor LIMIT ?", arguments: [anchor, limit]
        ).map(\.person) : []
        // Merge the four by anchor (each is in anchor order) and keep the first `limit` changes.
        var a = 0, d = 0, s = 0, p = 0
        var last = anchor
        while a + d + s + p < limit {
            let next: [Int64?] = [added[safe: a]?.anchor, deleted[safe: d]?.anchor, sessions[safe: s]?.anchor ?? nil,
                                  people[safe: p]?.anchor ?? nil]
            guard let smallest = next.compactMap({ $0 }).min() else { break }
            if next[0] == smallest {
                self.added.append(added[a])
                a += 1
            } else if next[1] == smallest {
                self.deleted.append(deleted[d])
                d += 1
            } else if next[2] == smallest {
                self.sessions.append(sessions[s])
                s += 1
            } else {
                self.people.append(people[p])
                p += 1
            }
            last = smallest
        }
        let allTaken: Bool = a == added.count && d == deleted.count && s == sessions.count && p == people.count
        let noneCut: Bool = max(added.count, deleted.count, sessions.count, people.count) < limit
        let complete = allTaken && noneCut
        self.anchor = complete ? max(anchor, try AnchorSequence.current(db)) : last
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
