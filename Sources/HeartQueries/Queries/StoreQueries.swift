import Control
import Foundation
import HealthModel
import HeartStore

/// The read methods of the control protocol, answered from the store. The daemon serves them on its socket and
/// `heartctl --db` runs the very same code on a read-only database, so both give identical answers.
public struct StoreQueries: Sendable {
    public let database: HeartDatabase

    public init(database: HeartDatabase) {
        self.database = database
    }

    /// Whether `method` is answered here (`handle`; `export` by `exportStream`) rather than by the daemon alone.
    public static func answers(_ method: ControlMethod) -> Bool {
        switch method {
        case .devices, .series, .show, .beats, .quantities, .stats, .hrv, .changes, .sessionStart, .sessionStop, .sessions,
             .sessionShow, .report, .export, .delete, .people, .personSet, .personRemove, .personAssign, .personUnassign:
            true
        case .status, .watch, .subscribe, .allow, .forget, .nearby:
            false
        }
    }

    /// `call`'s typed answer to `params` (what `handle` sends as JSON), built without a `JSONValue` in between.
    public func answer<C: ControlCall>(_ call: C.Type, _ params: C.Params, now: Date = Date()) throws(ControlError) -> C.Result {
        try Self.typed(call, try result(C.method, JSONBridge.params(params), now: now))
    }

    /// `result` as `C.Result`: a method answered with another type is an internal error that says so.
    public static func typed<C: ControlCall>(_ call: C.Type, _ result: any Encodable & Sendable) throws(ControlError) -> C.Result {
        guard let typed = result as? C.Result else {
            throw ControlError(.internalError, "\(C.method.rawValue): an answer of type \(type(of: result)), not \(C.Result.self)")
        }
        return typed
    }

    public func handle(_ method: ControlMethod, _ params: [String: JSONValue], now: Date = Date()) throws(ControlError) -> JSONValue {
        JSONBridge.value(try result(method, params, now: now))
    }

    /// `method`'s answer to `params` as its `ControlCall`'s `Result` (`handle` encodes it; `answer` hands it over as it is).
    func result(_ method: ControlMethod, _ params: [String: JSONValue], now: Date = Date()) throws(ControlError) -> any Encodable & Sendable {
        let p = QueryParameters(params, now: now)
        return try mappingErrors { () throws -> any Encodable & Sendable in
            switch method {
            case .series: return try series(p)
            case .show: return try show(p)
            case .beats: return try beats(p)
            case .quantities: return try quantities(p)
            case .stats: return try stats(p)
            case .hrv: return try hrv(p)
            case .changes: return try changes(p)
            case .devices: return try devices()
            case .delete: return DeleteCall.Result(deleted: try database.delete(uuid: try p.uuid()))
            case .sessionStart: return try sessionStart(p)
            case .sessionStop: return try sessionStop(p)
            case .sessions: return try sessionList(p)
            case .sessionShow: return try sessionShow(p)
            case .report: return try report(p)
            case .people: return try peopleList()
            case .personSet: return try personSet(params)
            case .personRemove: return try personRemove(params)
            case .personAssign: return try personAssign(params)
            case .personUnassign: return try personUnassign(params)
            case .status, .export, .watch, .subscribe, .allow, .forget, .nearby: throw ControlMethod.unknown(method.rawValue)
            }
        }
    }

    /// Runs a query with the store's errors as control errors (`not-found`, `invalid-params`, `unavailable`).
    public func mappingErrors<T>(_ body: () throws -> T) throws(ControlError) -> T {
        do {
            return try body()
        } catch let error as ControlError {
            throw error
        } catch let error as StoreError {
            let code: ControlErrorCode = switch error.code {
            case .notFound: .notFound
            case .conflict, .invalidSample: .invalidParams
            default: .unavailable
            }
            throw ControlError(code, "store: \(error)")
        } catch {
            throw ControlError(.internalError, "\(error)")
        }
    }

    /// `devices` as the store answers it (the daemon adds `live`).
    public func devices() throws -> DevicesCall.Result {
        DevicesCall.Result(devices: try database.devices().map(DevicesCall.Stored.init))
    }

    func series(_ p: QueryParameters) throws -> SeriesCall.Result {
        let scope = try Self.scope(of: .series, p.params, now: p.now)
        var after: SamplePageCursor?
        if let token = try p.string("cursor") {
            guard let cursor = SamplePageCursor(token: token) else {
                throw ControlError(.invalidParams, "'cursor' is not a 'next' this method returned")
            }
            after = cursor
        }
        let page = try database.samplePage(type: scope.type, device: scope.device, from: scope.from, to: scope.to,
                                           metadata: scope.metadata, limit: scope.limit, newestFirst: scope.newestFirst,
                                           after: after)
        return SeriesCall.Result(samples: page.samples.map { SeriesCall.Listed($0) }, next: page.next?.token)
    }

    func show(_ p: QueryParameters) throws -> ExportedSample {
        let uuid = try p.uuid()
        guard let sample = try database.sample(uuid: uuid) else { throw ControlError(.notFound, "no sample \(uuid)") }
        return ExportedSample(sample)
    }

    func beats(_ p: QueryParameters) throws -> BeatsCall.Result {
        let uuid = try p.uuid()
        guard case .heartbeatSeries(let s)? = try database.sample(uuid: uuid) else {
            throw ControlError(.notFound, "no heartbeat series \(uuid)")
        }
        return BeatsCall.Result(s)
    }

    /// The [from, to) of a range method's scope (defaults applied by `resolvedScope`), checked.
    func range(_ scope: QueryScope) throws(ControlError) -> (Date, Date) {
        guard let from = scope.from, let to = scope.to else { throw ControlError(.internalError, "a range method without a range") }
        guard from < to else { throw ControlError(.invalidParams, "'from' must be before 'to'") }
        return (from, to)
    }

    func quantities(_ p: QueryParameters) throws -> QuantitiesCall.Result {
        let type = try p.quantityType(default: .heartRate)
        let scope = try resolvedScope(of: .quantities, p.params, now: p.now)
        let (from, to) = try range(scope)
        let points = try database.quantities(type: type, from: from, to: to, device: scope.device, metadata: scope.metadata)
        return QuantitiesCall.Result(type: type.shortName, unit: type.unit.rawValue, points: points)
    }

    /// Statistics over [from, to); with `interval` (seconds) a collection of buckets aligned to `anchor`
    /// (default: midnight UTC of `from`); with `by_device` also one entry per device (HealthKit's
    /// `separateBySource`), each with the same fields (`StatsPlan`).
    func stats(_ p: QueryParameters) throws -> StatsCall.Result {
        let plan = try StatsPlan(p.params, scope: try resolvedScope(of: .stats, p.params, now: p.now), now: p.now)
        // The statistics (or buckets) of one device's points, or of every device's with nil; nil when it has none.
        // The points stream from the store into the buckets' running totals: one stored sample in memory at a time.
        func statistics(device: String?, skipEmpty: Bool = false) throws -> StatsPlan.Entry? {
            var builder = try plan.builder()
            var any = false
            if plan.readsHourlyRollup {
                let answered = try database.heartRateRollup(from: plan.from, to: plan.to, device: device, totals: { hour, totals in
                    any = true
                    builder.merge(totals, intoBucket: plan.bucketIndex(of: hour))
                }, point: {
                    any = true
                    builder.add($0)
                })
                if answered {
                    if skipEmpty && !any { return nil }
                    return plan.entry(builder)
                }
            }
            try database.forEachQuantityPoint(type: plan.type, from: plan.from, to: plan.to, device: device,
                                              metadata: plan.scope.metadata) {
                any = true
                builder.add($0)
            }
            if skipEmpty && !any { return nil }
            return plan.entry(builder)
        }
        let all = try statistics(device: plan.scope.device)
        guard plan.byDevice else { return plan.result(all) }
        var devices: [StatsCall.Device] = []
        for record in try database.devices() {
            guard let address = record.address, plan.scope.device.map({ $0.uppercased() == address.uppercased() }) ?? true,
                  let entry = try statistics(device: address, skipEmpty: true) else { continue }
            devices.append(StatsCall.Device(device: address, name: record.info.name, statistics: entry.statistics, buckets: entry.buckets))
        }
        return plan.result(all, devices: devices)
    }

    /// HRV of one heartbeat series (`uuid`) or of every series in scope, never across a gap. Over a range the series
    /// stream from the store one at a time into running sums (`HRVRange`), each series its own segments, so
    /// months of beats are never in memory together; their beats are kept for the analysis up to
    /// `HRVRange.analysisBeatLimit`.
    func hrv(_ p: QueryParameters) throws -> HRVCall.Result {
        if p.params["uuid"] != nil {
            let uuid = try p.uuid()
            guard let b = try database.beats(uuid: uuid) else { throw ControlError(.notFound, "no heartbeat series \(uuid)") }
            do {
                return HRVCall.Result(try HRVMetrics(beats: b), analysis: try HRVAnalysis(beats: b))
            } catch {
                throw ControlError(.notFound, "not enough beats for HRV: \(error)")
            }
        }
        let scope = try resolvedScope(of: .hrv, p.params, now: p.now)
        let (from, to) = try range(scope)
        // More beats than a full analysis takes: the time domain from the hourly sums, without decoding a beat.
        var sums = HRVAccumulator()
        if try database.heartbeatRollup(from: from, to: to, device: scope.device, metadata: scope.metadata,
                                        beatsAbove: HRVRange.analysisBeatLimit, { sums.merge($0) }) {
            do {
                var result = HRVCall.Result(try sums.metrics())
                result.rolledUp = HRVCall.Measure.allCases
                return result
            } catch {
                throw ControlError(.notFound, "not enough beats for HRV: \(error)")
            }
        }
        var range = HRVRange()
        try database.forEachHeartbeatSeries(from: from, to: to, device: scope.device, metadata: scope.metadata) { range.add($0) }
        return try range.result()
    }

    func changes(_ p: QueryParameters) throws -> SampleChanges {
        let anchor = Int64(try p.int("anchor") ?? 0)
        return try database.changes(since: anchor, limit: try p.int("limit") ?? 1000)
    }
}

extension Calendar {
    static let utc: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC") ?? .current
        return c
    }()
}
