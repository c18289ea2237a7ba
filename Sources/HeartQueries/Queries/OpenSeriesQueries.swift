import Control
import Foundation
import HealthModel
import HeartStore

/// The read methods that must not pretend capture stored nothing: a series is stored only when it finishes (idle
/// timeout, disconnect, rotation after up to an hour), and an operator checking that capture works would otherwise
/// see "no samples". The daemon passes its pipeline's open series; `heartctl --db` passes what the daemon's
/// checkpoints hold of them (`HeartDatabase.openSeriesSnapshots`, up to a second behind). So:
/// - `series` with `"include_open": true` (heartctl sends it) lists them after the stored ones, marked
///   `"open": true`, with their data so far (and `"open"`: the count of them); without it, stored series only, as
///   before, so scripts that read `series` as "what is stored" keep their meaning;
/// - `beats UUID` answers for an open heartbeat series (marked open) as for a stored one;
/// - `stats` (heart-rate points) covers stored series only and says how many open series of the type it left out
///   (`open_series`), because statistics over a series that is still growing would change under the reader.
public struct OpenSeriesQueries {
    /// The series still open, as a `Sample` each (data so far).
    let openSeries: () throws(ControlError) -> [Sample]
    let queries: StoreQueries

    public init(queries: StoreQueries, openSeries: @escaping () throws(ControlError) -> [Sample]) {
        self.queries = queries
        self.openSeries = openSeries
    }

    /// For a reader of the store file (`heartctl --db`): the open series as the daemon's checkpoints hold them.
    public static func checkpointed(_ queries: StoreQueries) -> OpenSeriesQueries {
        OpenSeriesQueries(queries: queries) { () throws(ControlError) in
            do {
                return try queries.database.openSeriesSnapshots()
            } catch {
                throw ControlError(.unavailable, "store: the open series' checkpoints: \(error)")
            }
        }
    }

    public func handle(_ method: ControlMethod, _ params: [String: JSONValue]) throws(ControlError) -> JSONValue {
        JSONBridge.value(try result(method, params))
    }

    /// `call`'s typed answer to `params` (what `handle` sends as JSON), without a `JSONValue` in between: what
    /// `heartctl --db` prints from.
    public func answer<C: ControlCall>(_ call: C.Type, _ params: C.Params) throws(ControlError) -> C.Result {
        try StoreQueries.typed(call, try result(C.method, JSONBridge.params(params)))
    }

    func result(_ method: ControlMethod, _ params: [String: JSONValue]) throws(ControlError) -> any Encodable & Sendable {
        switch method {
        case .series: return try series(params)
        case .beats: return try beats(params)
        case .stats: return try stats(params)
        case .status, .devices, .show, .quantities, .hrv, .changes, .sessionStart, .sessionStop, .sessions, .sessionShow,
             .report, .export, .watch, .subscribe, .allow, .forget, .delete, .people, .personSet, .personRemove, .personAssign, .personUnassign, .nearby:
            return try queries.result(method, params)
        }
    }

    /// The open series in `scope`: filtered exactly as the store filters stored ones (`QueryScope.matches`), so
    /// `session` and `metadata` select an open series by the tags it already carries.
    func open(_ scope: QueryScope) throws(ControlError) -> [Sample] {
        try openSeries().filter(scope.matches)
    }

    func series(_ params: [String: JSONValue]) throws(ControlError) -> SeriesCall.Result {
        var result = try queries.mappingErrors { try queries.series(QueryParameters(params)) }
        // The open series follow the stored ones: on the last page only.
        guard try QueryParameters(params).bool("include_open") == true, result.next == nil else { return result }
        let open = try open(try StoreQueries.scope(of: .series, params))
        result.samples += open.map { SeriesCall.Listed(SampleSummary($0), open: true) }
        result.open = open.count
        return result
    }

    func beats(_ params: [String: JSONValue]) throws(ControlError) -> BeatsCall.Result {
        do {
            return try queries.mappingErrors { try queries.beats(QueryParameters(params)) }
        } catch where error.code == .notFound {
            let uuid = try QueryParameters(params).uuid()
            guard case .heartbeatSeries(let s)? = try openSeries().first(where: { $0.uuid == uuid }) else { throw error }
            return BeatsCall.Result(s, open: true)
        }
    }

    func stats(_ params: [String: JSONValue]) throws(ControlError) -> StatsCall.Result {
        var result = try queries.mappingErrors { try queries.stats(QueryParameters(params)) }
        var scope: QueryScope
        do {
            scope = try queries.resolvedScope(of: .stats, params)
        } catch {
            throw error as? ControlError ?? ControlError(.unavailable, "store: \(error)")
        }
        // A range that runs to now holds every open series, whatever its clock says (a fast simulator dates ahead).
        if params["to"] == nil { scope.to = nil }
        result.openSeries = try open(scope).count
        return result
    }
}
