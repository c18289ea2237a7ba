import Foundation
import GRDB
import HealthModel

/// Which sessions a listing returns.
public struct SessionFilter: Sendable, Hashable {
    /// Sessions overlapping [from, to) (an active one extends to now).
    public var from: Date?
    public var to: Date?
    public var label: String?
    public var activeOnly: Bool
    /// What the session's metadata must hold.
    public var metadata: MetadataPredicate
    public var limit: Int

    public init(from: Date? = nil, to: Date? = nil, label: String? = nil, activeOnly: Bool = false,
                metadata: MetadataPredicate = [:], limit: Int = 1000) {
        self.from = from
        self.to = to
        self.label = label
        self.activeOnly = activeOnly
        self.metadata = metadata
        self.limit = limit
    }
}

extension HeartDatabase {
    /// Stores a new active session (its `end` and `statistics` are ignored) with a new anchor, so it survives a
    /// crash from its start. A UUID already used or deleted is a `conflict`. With `MetadataKey.syncIdentifier` (and
    /// an integer `MetadataKey.syncVersion`, else `invalidSample`) it replaces a stored session with that identifier
    /// and a lower version (which leaves a tombstone); an equal or higher stored version is a `conflict`.
    @discardableResult
    public func startSession(_ session: Session) throws(StoreError) -> Session {
        try write { db in
            let key = StoreCoding.uuidBlob(session.uuid)
            for table in ["sessions", "tombstones"] where
                try Bool.fetchOne(db, sql: "SELECT 1 FROM \(table) WHERE uuid = ?", arguments: [key]) == true {
                throw StoreError(.conflict, "session \(session.uuid) already exists or was deleted")
            }
            var anchors = try AnchorSequence(db)
            if let syncIdentifier = session.metadata[MetadataKey.syncIdentifier] {
                guard let version = session.metadata[MetadataKey.syncVersion].flatMap({ Int($0) }) else {
                    throw StoreError(.invalidSample, "sync identifier \(syncIdentifier) needs an integer \(MetadataKey.syncVersion)")
                }
                if let row = try Row.fetchOne(db, sql: "SELECT uuid, syncVersion FROM sessions WHERE syncIdentifier = ?",
                                              arguments: [syncIdentifier]) {
                    let existing: Int = try row.decode(forColumn: "syncVersion") ?? Int.min
                    guard version > existing else {
                        throw StoreError(.conflict, "sync identifier \(syncIdentifier) is stored with version \(existing) ≥ \(version)")
                    }
                    let old = try StoreCoding.uuid(try row.decode(forColumn: "uuid"))
                    try db.execute(sql: "DELETE FROM sessions WHERE uuid = ?", arguments: [StoreCoding.uuidBlob(old)])
                    try TombstoneRecord(uuid: old, type: Session.typeIdentifier, deletedAt: Date(), anchor: anchors.next()).insert(db)
                }
            }
            var stored = session
            stored.end = nil
            stored.statistics = nil
            stored.anchor = anchors.next()
            try SessionRecord(stored).insert(db)
            try anchors.store(db)
            return stored
        }
    }

    /// Ends an active session at `end` (not before its start), computes its statistics from what its devices
    /// stored in [start, end), and saves both with a new anchor. Without `analysis` the statistics leave out the
    /// HRV analysis (`SessionStatistics.analysis`, most of the cost), which `storeSessionAnalysis` adds later.
    /// `notFound` for an unknown UUID, `conflict` for a session already ended.
    @discardableResult
    public func stopSession(uuid: UUID, end: Date, analysis: Bool = true) throws(StoreError) -> Session {
        guard let found = try session(uuid: uuid) else { throw StoreError(.notFound, "no session \(uuid)") }
        let end = max(end, found.start)
        // Computed from committed samples before the write; the write re-checks that the session is still active.
        let statistics = try sessionStatistics(found, until: end, analysis: analysis)
        return try write { db in
            guard var session = try Self.session(uuid: uuid, in: db) else {
                throw StoreError(.notFound, "no session \(uuid)")
            }
            guard session.end == nil else { throw StoreError(.conflict, "session \(uuid) has already ended") }
            session.end = end
            session.statistics = statistics
            var anchors = try AnchorSequence(db)
            session.anchor = anchors.next()
            try SessionRecord(session).update(db)
            try anchors.store(db)
            return session
        }
    }

    /// Adds the HRV analysis to the statistics of an ended session stopped without it (`stopSession(analysis:
    /// false)`), computed from what its devices stored in [start, end), and saves it with a new anchor. Returns the
    /// session as stored, or nil when there is nothing to add: no such session, still active, no statistics, or an
    /// analysis already there. The analysis is nil (and nothing is written) with fewer than two RR intervals.
    @discardableResult
    public func storeSessionAnalysis(uuid: UUID) throws(StoreError) -> Session? {
        guard let found = try session(uuid: uuid), let end = found.end, let statistics = found.statistics,
              statistics.analysis == nil else { return nil }
        var series: [HeartbeatSeriesSample] = []
        for device in found.devices.isEmpty ? [nil] : found.devices.map({ Optional($0) }) {
            series += try heartbeatSeries(from: found.start, to: end, device: device)
        }
        guard let analysis = SessionStatistics.analysis(series, from: found.start, to: end) else { return nil }
        return try write { db in
            // Re-checked in the write: the session may have been deleted or replaced meanwhile.
            guard var session = try Self.session(uuid: uuid, in: db), session.end == end,
                  session.statistics != nil, session.statistics?.analysis == nil else { return nil }
            session.statistics?.analysis = analysis
            var anchors = try AnchorSequence(db)
            session.anchor = anchors.next()
            try SessionRecord(session).update(db)
            try anchors.store(db)
            return session
        }
    }

    /// Stores a session exactly as another store holds it — its end and statistics included, with a new local
    /// anchor — replacing one with the same UUID: how `heartctl --central` puts the central sessions in its memory
    /// store, so the very same listing answers.
    public func saveCopy(of session: Session) throws(StoreError) {
        try write { db in
            var anchors = try AnchorSequence(db)
            var stored = session
            stored.anchor = anchors.next()
            try db.execute(sql: "DELETE FROM sessions WHERE uuid = ?", arguments: [StoreCoding.uuidBlob(session.uuid)])
            try SessionRecord(stored).insert(db)
            try anchors.store(db)
        }
    }

    /// Statistics of a session over [start, until) from the stored samples of its devices (live statistics of an
    /// active session, or those of an ended one recomputed); without `analysis`, no HRV analysis.
    public func sessionStatistics(_ session: Session, until: Date, analysis: Bool = true) throws(StoreError) -> SessionStatistics {
        let end = max(until, session.start)
        let devices: [String?] = session.devices.isEmpty ? [nil] : session.devices.map { $0 }
        var series: [HeartbeatSeriesSample] = []
        var heartRate: [QuantityPoint] = [], energy: [QuantityPoint] = []
        for device in devices {
            series += try heartbeatSeries(from: session.start, to: end, device: device)
            heartRate += try quantities(type: .heartRate, from: session.start, to: end, device: device)
            energy += try quantities(type: .activeEnergyBurned, from: session.start, to: end, device: device)
        }
        do {
            return try SessionStatistics(start: session.start, end: end, heartbeatSeries: series, heartRate: heartRate,
                                         energy: energy, analysis: analysis)
        } catch {
            throw StoreError(.invalidSample, "session \(session.uuid): \(error)")
        }
    }

    /// The session with this UUID, or nil.
    public func session(uuid: UUID) throws(StoreError) -> Session? {
        try read { db in try Self.session(uuid: uuid, in: db) }
    }

    /// Sessions matching `filter`, oldest start first.
    public func sessions(_ filter: SessionFilter = SessionFilter()) throws(StoreError) -> [Session] {
        try read { db in
            guard try db.tableExists("sessions") else { return [] } // an older store opened read-only
            var clauses: [String] = []
            var arguments: StatementArguments = []
            if let to = filter.to {
                clauses.append("startDate < ?")
                arguments += [StoreCoding.seconds(to)]
            }
            if let from = filter.from {
                clauses.append("(endDate IS NULL OR endDate > ?)")
                arguments += [StoreCoding.seconds(from)]
            }
            if let label = filter.label {
                clauses.append("label = ?")
                arguments += [label]
            }
            if filter.activeOnly { clauses.append("endDate IS NULL") }
            let (metadataSQL, metadataArguments) = filter.metadata.sqlClauses(column: "sessions.metadata")
            clauses += metadataSQL
            arguments += metadataArguments
            let condition = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
            arguments += [max(filter.limit, 0)]
            return try SessionRecord.fetchAll(
                db, sql: "SELECT * FROM sessions \(condition) ORDER BY startDate, anchor LIMIT ?", arguments: arguments
            ).map(\.session)
        }
    }

    /// Deletes a session, leaving a tombstone with a new anchor. The samples recorded in it stay.
    @discardableResult
    public func deleteSession(uuid: UUID) throws(StoreError) -> Bool {
        try write { db in
            let key = StoreCoding.uuidBlob(uuid)
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM sessions WHERE uuid = ?", arguments: [key]) == true
            else { return false }
            var anchors = try AnchorSequence(db)
            try db.execute(sql: "DELETE FROM sessions WHERE uuid = ?", arguments: [key])
            try TombstoneRecord(uuid: uuid, type: Session.typeIdentifier, deletedAt: Date(), anchor: anchors.next()).insert(db)
            try anchors.store(db)
            return true
        }
    }

    static func session(uuid: UUID, in db: Database) throws -> Session? {
        guard try db.tableExists("sessions") else { return nil }
        return try SessionRecord.fetchOne(
            db, sql: "SELECT * FROM sessions WHERE uuid = ?", arguments: [StoreCoding.uuidBlob(uuid)])?.session
    }
}
