import Control
import Foundation
import HealthModel
import HeartStore
import SourceEvents

/// The session methods: `session.start` and `session.stop` (session access), `sessions` and `session.show` (read).
extension StoreQueries {
    /// `label`, `devices` (addresses), `metadata` (string values), `start` (default now), `uuid` (default new).
    public func sessionStart(_ p: QueryParameters) throws -> Session {
        let devices = try p.stringArray("devices").map { a throws(ControlError) -> String in
            guard let address = DeviceAddress.normalized(a) else {
                throw ControlError(.invalidParams, "'devices': not an address: \(a)")
            }
            return address
        }
        var metadata = try p.stringObject("metadata")
        metadata.merge(try personTags(forSessionOn: devices)) { given, _ in given }
        let uuid: UUID = p.params["uuid"] == nil ? UUID() : try p.uuid()
        let session = Session(uuid: uuid, label: try p.string("label"), start: try p.date("start") ?? p.now,
                              devices: devices, metadata: metadata)
        return try database.startSession(session)
    }

    /// `uuid`, default the only active session; `end` (default now). Without `analysis` the stored statistics
    /// leave out the HRV analysis, for the caller to add after (`HeartDatabase.storeSessionAnalysis`).
    public func sessionStop(_ p: QueryParameters, analysis: Bool = true) throws -> Session {
        let uuid: UUID
        if p.params["uuid"] != nil {
            uuid = try p.uuid()
        } else {
            let active = try database.sessions(SessionFilter(activeOnly: true))
            guard active.count == 1, let only = active.first else {
                if active.isEmpty { throw ControlError(.notFound, "no active session") }
                throw ControlError(.invalidParams, "\(active.count) sessions are active; name one: "
                    + active.map(\.uuid.uuidString).joined(separator: ", "))
            }
            uuid = only.uuid
        }
        return try database.stopSession(uuid: uuid, end: try p.date("end") ?? p.now, analysis: analysis)
    }

    /// `from`, `to`, `label`, `active` (bool), `metadata` (as for samples), `limit`.
    func sessionList(_ p: QueryParameters) throws -> SessionsCall.Result {
        let active: Bool
        switch p.params["active"] {
        case nil, .null?: active = false
        case let v?:
            guard let b = v.boolValue else { throw ControlError(.invalidParams, "'active' must be a boolean") }
            active = b
        }
        let filter = SessionFilter(from: try p.date("from"), to: try p.date("to"), label: try p.string("label"),
                                   activeOnly: active, metadata: try p.metadataPredicate(),
                                   limit: try p.int("limit") ?? 1000)
        return SessionsCall.Result(sessions: try database.sessions(filter))
    }

    /// `uuid`; an active session comes with its statistics so far. An ended session whose stored statistics have no
    /// HRV analysis yet (its stop replied before the analysis was stored, or the daemon ended in between) comes with
    /// the analysis computed now from the store (not stored).
    func sessionShow(_ p: QueryParameters) throws -> Session {
        let uuid = try p.uuid()
        guard var session = try database.session(uuid: uuid) else { throw ControlError(.notFound, "no session \(uuid)") }
        if session.isActive {
            session.statistics = try database.sessionStatistics(session, until: p.now)
        } else if let end = session.end, session.statistics != nil, session.statistics?.analysis == nil {
            let analysis = try database.sessionStatistics(session, until: end).analysis
            session.statistics?.analysis = analysis
        }
        return session
    }
}

extension QueryParameters {
    /// An object of strings (metadata); empty when absent.
    func stringObject(_ key: String) throws(ControlError) -> Metadata {
        guard let object = params[key], !object.isNull else { return [:] }
        guard let members = object.objectValue else { throw ControlError(.invalidParams, "'\(key)' must be an object") }
        var result: Metadata = [:]
        for (name, value) in members {
            guard let s = value.stringValue else { throw ControlError(.invalidParams, "'\(key).\(name)' must be a string") }
            result[name] = s
        }
        return result
    }

    /// `metadata` (an object whose values are a string or an array of allowed strings) plus `session` (a UUID: its
    /// series carry `HeartdSession`), as a `MetadataPredicate`.
    public func metadataPredicate() throws(ControlError) -> MetadataPredicate {
        var predicate = MetadataPredicate()
        if let object = params["metadata"], !object.isNull {
            guard let members = object.objectValue else { throw ControlError(.invalidParams, "'metadata' must be an object") }
            for (key, value) in members {
                let values: [JSONValue] = value.arrayValue ?? [value]
                guard !values.isEmpty else { throw ControlError(.invalidParams, "'metadata.\(key)' allows no value") }
                for v in values {
                    guard let s = v.stringValue else {
                        throw ControlError(.invalidParams, "'metadata.\(key)' must be a string or an array of strings")
                    }
                    predicate.allow(key, s)
                }
            }
        }
        if params["session"] != nil { predicate.require(MetadataKey.session, try uuid("session").uuidString) }
        return predicate
    }

    /// An array of strings; empty when absent.
    func stringArray(_ key: String) throws(ControlError) -> [String] {
        guard let v = params[key], !v.isNull else { return [] }
        guard let items = v.arrayValue else { throw ControlError(.invalidParams, "'\(key)' must be an array of strings") }
        return try items.map { item throws(ControlError) -> String in
            guard let s = item.stringValue else { throw ControlError(.invalidParams, "'\(key)' must be an array of strings") }
            return s
        }
    }
}
