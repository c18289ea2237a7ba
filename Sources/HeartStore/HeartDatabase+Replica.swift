import Foundation
import GRDB
import HealthModel

/// A stored sample as a replica needs it: the full sample, its compact contents exactly as stored (so a
/// replica can keep them without re-encoding) and its change anchor.
public struct StoredSample: Sendable {
    public var sample: Sample
    /// The `HeartbeatSeriesCoding` / `QuantitySeriesCoding` blob.
    public var contents: [UInt8]
    public var anchor: Int64
}

/// A deletion as a replica needs it.
public struct StoredDeletion: Sendable, Hashable {
    public var uuid: UUID
    public var typeIdentifier: String
    public var deletedAt: Date
    public var anchor: Int64
}

/// One page of changes for a replica (e.g. `heartd-sync`): full samples added, sessions started or stopped and
/// people saved (their state now) and deletions of any of them after an anchor, in anchor order, and the anchor to
/// pass next time (same page as `changes(since:limit:)`, which leaves people out).
public struct ReplicaChanges: Sendable {
    public var added: [StoredSample]
    public var deleted: [StoredDeletion]
    public var sessions: [Session] = []
    public var people: [Person] = []
    public var anchor: Int64

    public init(added: [StoredSample], deleted: [StoredDeletion], sessions: [Session] = [], people: [Person] = [],
                anchor: Int64) {
        self.added = added
        self.deleted = deleted
        self.sessions = sessions
        self.people = people
        self.anchor = anchor
    }

    public var isEmpty: Bool { added.isEmpty && deleted.isEmpty && sessions.isEmpty && people.isEmpty }
}

extension HeartDatabase {
    /// Full samples (with contents), sessions and deletions after `anchor`, at most `limit` changes; see
    /// `changes(since:)`.
    public func replicaChanges(since anchor: Int64, limit: Int = 1000) throws(StoreError) -> ReplicaChanges {
        let (page, infos): (ChangePage, [Int64: DeviceInfo]) = try read { db in
            let page = try ChangePage(since: anchor, limit: limit, columns: "*", in: db)
            return (page, try Self.deviceInfos(ids: page.added.compactMap(\.deviceId), in: db))
        }
        var added: [StoredSample] = []
        added.reserveCapacity(page.added.count)
        for record in page.added {
            let sample = try record.sample(device: try Self.device(of: record, infos: infos))
            added.append(StoredSample(sample: sample, contents: record.contents, anchor: record.anchor))
        }
        let deleted = page.deleted.map {
            StoredDeletion(uuid: $0.uuid, typeIdentifier: $0.type, deletedAt: $0.deletedAt, anchor: $0.anchor)
        }
        return ReplicaChanges(added: added, deleted: deleted, sessions: page.sessions, people: page.people, anchor: page.anchor)
    }

    /// When the oldest change after `anchor` happened: the earliest end of a sample saved after it or the
    /// earliest deletion after it, or the earliest start or stop of a session saved after it; nil when there is
    /// none. A replica's lag is now minus this date.
    public func oldestChange(after anchor: Int64) throws(StoreError) -> Date? {
        try read { db in
            let sample = try Double.fetchOne(db, sql: "SELECT MIN(endDate) FROM samples WHERE anchor > ?", arguments: [anchor])
            let deletion = try Double.fetchOne(
                db, sql: "SELECT MIN(deletedAt) FROM tombstones WHERE anchor > ?", arguments: [anchor])
            let session = try db.tableExists("sessions") ? try Double.fetchOne(
                db, sql: "SELECT MIN(COALESCE(endDate, startDate)) FROM sessions WHERE anchor > ?", arguments: [anchor]) : nil
            return [sample, deletion, session].compactMap { $0 }.min().map(StoreCoding.date)
        }
    }
}
