import Control
import Foundation
import HealthModel

/// Which samples a read method looks at, for readers that must fetch them before `StoreQueries` can answer
/// (`heartctl --central` loads them from the central PostgreSQL into a memory store, then runs the very same
/// queries). A superset is fine; `StoreQueries` applies the exact filters again.
public struct QueryScope: Sendable, Hashable {
    /// One sample (show, beats, hrv of a series).
    public var uuid: UUID?
    public var type: String?
    public var device: String?
    /// Samples overlapping [from, to); nil bounds are open.
    public var from: Date?
    public var to: Date?
    /// For `series`: at most this many, newest first or oldest first.
    public var limit: Int?
    public var newestFirst = false
    /// `devices`: no samples at all.
    public var devicesOnly = false
}

extension StoreQueries {
    /// The scope of `method` with `params`, with the same defaults the method itself uses.
    public static func scope(of method: String, _ params: [String: JSONValue], now: Date = Date()) throws(ControlError) -> QueryScope {
        let p = QueryParameters(params, now: now)
        var scope = QueryScope()
        func window(_ span: TimeInterval = 86400) throws(ControlError) {
            scope.to = try p.date("to") ?? now
            scope.from = try p.date("from") ?? scope.to?.addingTimeInterval(-span)
        }
        switch method {
        case "show", "beats":
            scope.uuid = try p.uuid()
        case "hrv":
            if params["uuid"] != nil { scope.uuid = try p.uuid() } else {
                try window()
                scope.type = Sample.heartbeatSeriesIdentifier
                scope.device = try p.string("device")
            }
        case "series":
            scope.type = try p.typeIdentifier()
            scope.device = try p.string("device")
            scope.from = try p.date("from")
            scope.to = try p.date("to")
            scope.limit = try p.int("limit") ?? 1000
            scope.newestFirst = try p.string("order") == "newest"
        case "quantities", "stats":
            try window()
            scope.type = try p.quantityType(default: .heartRate).identifier
            scope.device = try p.string("device")
        case "export":
            try window()
            scope.device = try p.string("device")
        case "devices":
            scope.devicesOnly = true
        default:
            throw ControlError(.unknownMethod, "'\(method)' cannot be answered from a central database")
        }
        return scope
    }
}
