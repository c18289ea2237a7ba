import Control
import Foundation
import HealthModel

/// Which samples a read method looks at: one filter for `series`, `stats`, `hrv`, `quantities` and `export` — the
/// store's query (`StoreQueries`), the daemon's open series (`matches`) and `heartctl --central`'s fetch (which
/// loads them from the central PostgreSQL into a memory store, then runs the very same queries; a superset is fine
/// there, `StoreQueries` applies the exact filters again).
public struct QueryScope: Sendable, Hashable {
    /// One sample (show, beats, hrv of a series).
    public var uuid: UUID?
    public var type: String?
    public var device: String?
    /// Samples overlapping [from, to); nil bounds are open.
    public var from: Date?
    public var to: Date?
    /// What a sample's own metadata must hold (`metadata`, and `session` as `HeartdSession` = its UUID).
    public var metadata = MetadataPredicate()
    /// `session`: what was recorded in this session. Without `from`/`to` its span is the range
    /// (`StoreQueries.resolvedScope`).
    public var session: UUID?
    /// For `series`: at most this many, newest first or oldest first.
    public var limit: Int?
    public var newestFirst = false
    /// `devices`: no samples at all.
    public var devicesOnly = false
    /// `sessions`: the sessions (their metadata, range and label filters apply to them), no samples.
    public var sessionsOnly = false

    public init() {}

    /// Whether a sample (an open series the daemon still builds) is in scope, as the store's query decides for a
    /// stored one: type, device, overlap with [from, to) and metadata.
    public func matches(_ sample: Sample) -> Bool {
        (uuid == nil || sample.uuid == uuid) && (type == nil || sample.typeIdentifier == type)
            && (device == nil || sample.device?.localIdentifier == device)
            && (from.map { sample.end >= $0 } ?? true) && (to.map { sample.start < $0 } ?? true)
            && metadata.matches(sample.metadata)
    }
}

extension StoreQueries {
    /// The scope of `method` with `params`, with the same defaults the method itself uses. With `session` and no
    /// `from`/`to`, the range stays open here (the session's span needs the store: `resolvedScope`).
    public static func scope(of method: ControlMethod, _ params: [String: JSONValue], now: Date = Date()) throws(ControlError) -> QueryScope {
        let p = QueryParameters(params, now: now)
        var scope = QueryScope()
        func filters() throws(ControlError) {
            scope.device = try p.string("device")
            scope.metadata = try p.metadataPredicate()
            scope.session = params["session"] == nil ? nil : try p.uuid("session")
            scope.from = try p.date("from")
            scope.to = try p.date("to")
        }
        func window(_ span: TimeInterval = 86400) throws(ControlError) {
            try filters()
            guard scope.session == nil || scope.from != nil || scope.to != nil else { return }
            scope.to = scope.to ?? now
            scope.from = scope.from ?? scope.to?.addingTimeInterval(-span)
        }
        switch method {
        case .show, .beats:
            scope.uuid = try p.uuid()
        case .hrv:
            if params["uuid"] != nil { scope.uuid = try p.uuid() } else {
                try window()
                scope.type = Sample.heartbeatSeriesIdentifier
            }
        case .series:
            try filters()
            scope.type = try p.typeIdentifier()
            scope.limit = try p.int("limit") ?? 1000
            scope.newestFirst = try p.string("order") == "newest"
        case .quantities, .stats:
            try window()
            scope.type = try p.quantityType(default: .heartRate).identifier
        case .export:
            try window()
        case .devices:
            scope.devicesOnly = true
        case .sessions:
            scope.sessionsOnly = true
        case .status, .changes, .sessionStart, .sessionStop, .sessionShow, .report, .watch, .subscribe, .allow, .forget, .delete, .people, .personSet, .personRemove, .personAssign, .personUnassign, .nearby:
            throw ControlError(.unknownMethod, "'\(method.rawValue)' cannot be answered from a central database")
        }
        return scope
    }

    /// `scope(of:)` with a session's span as the range when `session` is given without `from`/`to` (`series` keeps
    /// an open range): the session's start to its end (or now), or — for a session this store does not hold, as
    /// `heartctl --central`'s memory store — the span of the samples tagged with it.
    public func resolvedScope(of method: ControlMethod, _ params: [String: JSONValue], now: Date = Date()) throws -> QueryScope {
        var scope = try Self.scope(of: method, params, now: now)
        guard method != .series, let uuid = scope.session, scope.from == nil, scope.to == nil else { return scope }
        if let session = try database.session(uuid: uuid) {
            scope.from = session.start
            scope.to = session.end ?? now
        } else {
            let tagged = try database.samples(metadata: [MetadataKey.session: uuid.uuidString])
            guard let first = tagged.map(\.start).min(), let last = tagged.map(\.end).max() else {
                throw ControlError(.notFound, "no session \(uuid)")
            }
            scope.from = first
            scope.to = last
        }
        // A session that has just started (or holds one instant sample) still spans a millisecond: [from, to) is not empty.
        if let from = scope.from, let to = scope.to, to <= from { scope.to = from.addingTimeInterval(0.001) }
        return scope
    }
}
