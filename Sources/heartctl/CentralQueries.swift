import Control
import Foundation
import HealthModel
import HeartQueries
import Sync

/// The range reads `heartctl --central` answers where the data is, never loading the range into heartctl:
/// `stats` from PostgreSQL's per-bucket totals (`CentralReader.statistics`), `hrv` over a range from heartbeat
/// series streamed through a server-side cursor into the running sums (`HRVRange`), or past a full analysis's beats
/// from the hourly HRV sums PostgreSQL adds up (`CentralReader.heartbeatRollup`). The request is parsed and the
/// answer assembled by the same types as the store's (`StatsPlan`, `HRVRange`), so both answer alike.
struct CentralQueries {
    let reader: CentralReader
    /// `--gateway`: only this gateway's samples.
    let gateway: String?

    /// Whether `method` with `params` is answered here rather than from a memory store.
    static func answers(_ method: ControlMethod, _ params: [String: JSONValue]) -> Bool {
        method == .stats || (method == .hrv && params["uuid"] == nil)
    }

    func handle(_ method: ControlMethod, _ params: [String: JSONValue], now: Date = Date()) async throws -> JSONValue {
        JSONBridge.value(try await result(method, params, now: now))
    }

    /// `C`'s typed answer (what `handle` sends as JSON), handed over as it is: no `JSONValue` built and decoded again.
    func answer<C: ControlCall>(_ call: C.Type, _ params: C.Params, now: Date = Date()) async throws -> C.Result {
        try StoreQueries.typed(call, try await result(C.method, JSONBridge.params(params), now: now))
    }

    private func result(_ method: ControlMethod, _ params: [String: JSONValue], now: Date) async throws -> any Encodable & Sendable {
        switch method {
        case .stats: try await stats(params, now: now)
        case .hrv: try await hrv(params, now: now)
        default: throw ControlError(.unknownMethod, "'\(method.rawValue)' is not aggregated centrally")
        }
    }

    /// `StoreQueries.scope(of:)` with a session's span as the range when `session` comes without `from`/`to`.
    func resolvedScope(of method: ControlMethod, _ params: [String: JSONValue], now: Date) async throws -> QueryScope {
        var scope = try StoreQueries.scope(of: method, params, now: now)
        guard let uuid = scope.session, scope.from == nil, scope.to == nil else { return scope }
        guard let span = try await reader.sessionSpan(uuid, now: now) else { throw ControlError(.notFound, "no session \(uuid)") }
        scope.from = span.from
        scope.to = span.to > span.from ? span.to : span.from.addingTimeInterval(0.001)
        return scope
    }

    func filter(_ scope: QueryScope, device: String?) -> CentralReader.Filter {
        CentralReader.Filter(type: scope.type, device: device, gateway: gateway, from: scope.from, to: scope.to,
                             metadata: scope.metadata)
    }

    func stats(_ params: [String: JSONValue], now: Date) async throws -> StatsCall.Result {
        let plan = try StatsPlan(params, scope: try await resolvedScope(of: .stats, params, now: now), now: now)
        func statistics(device: String?, skipEmpty: Bool = false) async throws -> StatsPlan.Entry? {
            var builder: QuantityStatisticsBuilder
            do {
                builder = try plan.builder()
            } catch {
                throw ControlError(.internalError, "\(error)")
            }
            let any = try await reader.statistics(filter(plan.scope, device: device), type: plan.type, into: &builder)
            if skipEmpty && !any { return nil }
            return plan.entry(builder)
        }
        let all = try await statistics(device: plan.scope.device)
        guard plan.byDevice else { return plan.result(all) }
        var devices: [StatsCall.Device] = []
        var seen = Set<String>()
        for device in try await reader.devices(gateway: gateway) {
            guard let address = device.info.localIdentifier, seen.insert(address.uppercased()).inserted,
                  plan.scope.device.map({ $0.uppercased() == address.uppercased() }) ?? true,
                  let entry = try await statistics(device: address, skipEmpty: true) else { continue }
            devices.append(StatsCall.Device(device: address, name: device.info.name, statistics: entry.statistics,
                                            buckets: entry.buckets))
        }
        return plan.result(all, devices: devices)
    }

    func hrv(_ params: [String: JSONValue], now: Date) async throws -> HRVCall.Result {
        let scope = try await resolvedScope(of: .hrv, params, now: now)
        guard let from = scope.from, let to = scope.to else { throw ControlError(.internalError, "a range method without a range") }
        guard from < to else { throw ControlError(.invalidParams, "'from' must be before 'to'") }
        // Past a full analysis's beats: the time domain from the hourly sums PostgreSQL adds up (`hrv_hourly`).
        if let sums = try await reader.heartbeatRollup(filter(scope, device: scope.device), beatsAbove: HRVRange.analysisBeatLimit) {
            return try HRVRange.rolledUp(sums)
        }
        var range = HRVRange()
        try await reader.forEachSample(filter(scope, device: scope.device)) { sample in
            if case .heartbeatSeries(let s) = sample { range.add(s) }
        }
        return try range.result()
    }
}
