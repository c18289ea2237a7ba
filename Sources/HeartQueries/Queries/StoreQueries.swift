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

    /// Methods answered here, with the access class they need.
    public static let methods: [String: ControlAccess] = [
        "series": .read, "show": .read, "beats": .read, "quantities": .read, "stats": .read, "hrv": .read,
        "changes": .read, "devices": .read, "delete": .admin,
    ].merging(sessionMethods) { a, _ in a }.merging(reportMethods) { a, _ in a }

    public func handle(_ method: String, _ params: [String: JSONValue], now: Date = Date()) throws(ControlError) -> JSONValue {
        let p = QueryParameters(params, now: now)
        do {
            if let result = try handleSession(method, p) { return result }
            if method == "report" { return try report(p) }
            switch method {
            case "series": return try series(p)
            case "show": return try show(p)
            case "beats": return try beats(p)
            case "quantities": return try quantities(p)
            case "stats": return try stats(p)
            case "hrv": return try hrv(p)
            case "changes": return try changes(p)
            case "devices": return JSONBridge.value(["devices": try database.devices().map(StoredDevice.init)])
            case "delete": return .object(["deleted": .bool(try database.delete(uuid: try p.uuid()))])
            default: throw ControlError(.unknownMethod, "unknown method '\(method)'")
            }
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

    func series(_ p: QueryParameters) throws -> JSONValue {
        let scope = try Self.scope(of: "series", p.params, now: p.now)
        let list = try database.samples(type: scope.type, device: scope.device, from: scope.from, to: scope.to,
                                        metadata: scope.metadata, limit: scope.limit, newestFirst: scope.newestFirst)
        return JSONBridge.value(["samples": list])
    }

    func show(_ p: QueryParameters) throws -> JSONValue {
        let uuid = try p.uuid()
        guard let sample = try database.sample(uuid: uuid) else { throw ControlError(.notFound, "no sample \(uuid)") }
        return JSONBridge.value(ExportedSample(sample))
    }

    func beats(_ p: QueryParameters) throws -> JSONValue {
        let uuid = try p.uuid()
        guard case .heartbeatSeries(let s)? = try database.sample(uuid: uuid) else {
            throw ControlError(.notFound, "no heartbeat series \(uuid)")
        }
        return .object(Self.beatsResult(s))
    }

    /// `beats`' answer for one heartbeat series: its start, device and (offset, precededByGap) rows.
    public static func beatsResult(_ s: HeartbeatSeriesSample) -> [String: JSONValue] {
        let rows: [JSONValue] = s.beats.map { .array([.double($0.offset), .bool($0.precededByGap)]) }
        return ["uuid": .string(s.uuid.uuidString), "start": .string(ExportDates.iso(s.start)),
                "device": s.device?.localIdentifier.map(JSONValue.string) ?? .null, "beats": .array(rows)]
    }

    /// The [from, to) of a range method's scope (defaults applied by `resolvedScope`), checked.
    func range(_ scope: QueryScope) throws(ControlError) -> (Date, Date) {
        guard let from = scope.from, let to = scope.to else { throw ControlError(.internalError, "a range method without a range") }
        guard from < to else { throw ControlError(.invalidParams, "'from' must be before 'to'") }
        return (from, to)
    }

    func quantities(_ p: QueryParameters) throws -> JSONValue {
        let type = try p.quantityType(default: .heartRate)
        let scope = try resolvedScope(of: "quantities", p.params, now: p.now)
        let (from, to) = try range(scope)
        let points = try database.quantities(type: type, from: from, to: to, device: scope.device, metadata: scope.metadata)
        return .object(["type": .string(type.shortName), "unit": .string(type.unit.rawValue), "points": JSONBridge.value(points)])
    }

    /// Statistics over [from, to); with `interval` (seconds) a collection of buckets aligned to `anchor`
    /// (default: midnight UTC of `from`); with `by_device` also one entry per device (HealthKit's
    /// `separateBySource`), each with the same fields.
    func stats(_ p: QueryParameters) throws -> JSONValue {
        let type = try p.quantityType(default: .heartRate)
        let scope = try resolvedScope(of: "stats", p.params, now: p.now)
        let (from, to) = try range(scope)
        let interval = try p.double("interval")
        if let interval, interval <= 0 { throw ControlError(.invalidParams, "'interval' must be positive seconds") }
        let anchor = try p.date("anchor") ?? Calendar.utc.startOfDay(for: from)
        // The statistics (or buckets) of one device's points, or of every device's with nil; nil when it has none.
        func statistics(device: String?, skipEmpty: Bool = false) throws -> [String: JSONValue]? {
            let points = try database.quantities(type: type, from: from, to: to, device: device, metadata: scope.metadata)
            if skipEmpty && points.isEmpty { return nil }
            guard let interval else {
                return ["statistics": JSONBridge.value(try QuantityStatistics(points: points, style: type.aggregation, from: from, to: to))]
            }
            let collection = try QuantityStatisticsCollection(points: points, style: type.aggregation, anchor: anchor,
                                                              interval: interval, from: from, to: to)
            return ["buckets": JSONBridge.value(collection.buckets)]
        }
        var result = try statistics(device: scope.device) ?? [:]
        result["type"] = .string(type.shortName)
        result["unit"] = .string(type.unit.rawValue)
        if let interval {
            result["anchor"] = .string(ExportDates.iso(anchor))
            result["interval"] = .double(interval)
        }
        if try p.bool("by_device") == true {
            var devices: [JSONValue] = []
            for record in try database.devices() {
                guard let address = record.address, scope.device.map({ $0.uppercased() == address.uppercased() }) ?? true,
                      var entry = try statistics(device: address, skipEmpty: true) else { continue }
                entry["device"] = .string(address)
                entry["name"] = record.info.name.map(JSONValue.string) ?? .null
                devices.append(.object(entry))
            }
            result["devices"] = .array(devices)
        }
        return .object(result)
    }

    /// HRV of one heartbeat series (`uuid`) or of every series in scope, never across a gap.
    func hrv(_ p: QueryParameters) throws -> JSONValue {
        let beats: [Beat]
        if p.params["uuid"] != nil {
            let uuid = try p.uuid()
            guard let b = try database.beats(uuid: uuid) else { throw ControlError(.notFound, "no heartbeat series \(uuid)") }
            beats = b
        } else {
            let scope = try resolvedScope(of: "hrv", p.params, now: p.now)
            let (from, to) = try range(scope)
            // Each series starts a new segment: flag its first beat so no RR spans two series.
            beats = try database.heartbeatSeries(from: from, to: to, device: scope.device, metadata: scope.metadata).flatMap { s in
                s.beats.enumerated().map { i, b in Beat(offset: b.offset, precededByGap: b.precededByGap || i == 0) }
            }
        }
        do {
            return HRVReport.json(try HRVMetrics(beats: beats))
        } catch {
            throw ControlError(.notFound, "not enough beats for HRV: \(error)")
        }
    }

    func changes(_ p: QueryParameters) throws -> JSONValue {
        let anchor = Int64(try p.int("anchor") ?? 0)
        let changes = try database.changes(since: anchor, limit: try p.int("limit") ?? 1000)
        return JSONBridge.value(changes)
    }
}

/// A device as `devices` lists it.
struct StoredDevice: Codable {
    var address: String?
    var info: DeviceInfo
    var firstSeen: Date
    var lastSeen: Date

    init(_ record: DeviceRecord) {
        address = record.address
        info = record.info
        firstSeen = record.firstSeen
        lastSeen = record.lastSeen
    }
}

extension Calendar {
    static let utc: Calendar = {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC") ?? .current
        return c
    }()
}
