import Control
import Foundation
import HealthModel

/// Gathers a report's data through the read methods of the control protocol (`session.show`, `devices`, `series`,
/// `beats`, `quantities`), so the same code works against the daemon's socket and on a store file
/// (`heartctl --db`, where `StoreQueries` answers them in-process). No rendering here; no I/O of its own.
public struct ReportQuery: Sendable {
    public enum Scope: Sendable, Hashable {
        case session(UUID)
        /// [from, to), one device or every device.
        case range(from: Date, to: Date, device: String?)
    }

    public typealias Call = (String, [String: JSONValue]) async throws -> JSONValue

    public var scope: Scope

    public init(_ scope: Scope) {
        self.scope = scope
    }

    /// The report's data; an active session reaches until `now`.
    public func gather(now: Date = Date(), call: Call) async throws -> ReportData {
        var session: Session?
        let from: Date, to: Date
        var addresses: [String]
        switch scope {
        case .session(let uuid):
            let s = try JSONBridge.decode(Session.self, from: try await call("session.show", ["uuid": .string(uuid.uuidString)]))
            session = s
            from = s.start
            to = max(s.end ?? now, s.start)
            addresses = s.devices
        case .range(let f, let t, let device):
            guard f < t else { throw ControlError(.invalidParams, "'from' must be before 'to'") }
            from = f
            to = t
            addresses = device.map { [$0] } ?? []
        }
        let known = try await Self.knownDevices(call)
        let everyDevice = addresses.isEmpty
        if everyDevice { addresses = known.map(\.address) }
        var devices: [ReportDevice] = []
        var energy: [QuantityPoint] = []
        for address in addresses {
            let info = known.first { $0.address.caseInsensitiveCompare(address) == .orderedSame }?.info
            let range: [String: JSONValue] = ["from": .double(from.timeIntervalSince1970), "to": .double(to.timeIntervalSince1970),
                                              "device": .string(address)]
            let series = try await Self.heartbeatSeries(range, call)
            let heartRate = try await Self.points(.heartRate, range, call)
            if session?.statistics == nil { energy += try await Self.points(.activeEnergyBurned, range, call) }
            // "Every device": only those with data in the range; named devices always (a session may cover a
            // sensor that never came).
            if everyDevice && series.isEmpty && heartRate.isEmpty { continue }
            devices.append(ReportDevice(address: address, info: info, heartRate: heartRate, series: series))
        }
        let statistics: SessionStatistics
        if let stored = session?.statistics {
            statistics = stored
        } else {
            statistics = try SessionStatistics(start: from, end: to, heartbeatSeries: devices.flatMap(\.series),
                                               heartRate: devices.flatMap(\.heartRate), energy: energy)
        }
        return ReportData(session: session, from: from, to: to, statistics: statistics, devices: devices, generated: now)
    }

    static func knownDevices(_ call: Call) async throws -> [(address: String, info: DeviceInfo)] {
        let listed = try await call("devices", [:])
        return try (listed["devices"]?.arrayValue ?? []).compactMap { d in
            guard let address = d["address"]?.stringValue, let info = d["info"] else { return nil }
            return (address, try JSONBridge.decode(DeviceInfo.self, from: info))
        }
    }

    /// The device's heartbeat series overlapping the range (stored, and open ones when the daemon answers), with beats.
    static func heartbeatSeries(_ range: [String: JSONValue], _ call: Call) async throws -> [HeartbeatSeriesSample] {
        var params = range
        params["type"] = .string("heartbeat")
        params["limit"] = .int(1_000_000)
        params["include_open"] = .bool(true)
        let listed = try await call("series", params)
        var result: [HeartbeatSeriesSample] = []
        for item in listed["samples"]?.arrayValue ?? [] {
            let summary = try JSONBridge.decode(SampleSummaryFields.self, from: item)
            let answer = try await call("beats", ["uuid": .string(summary.uuid.uuidString)])
            let beats = (answer["beats"]?.arrayValue ?? []).compactMap { row -> Beat? in
                guard let pair = row.arrayValue, pair.count == 2, let offset = pair[0].doubleValue else { return nil }
                return Beat(offset: offset, precededByGap: pair[1].boolValue ?? false)
            }
            result.append(HeartbeatSeriesSample(uuid: summary.uuid, start: summary.start, end: summary.end, beats: beats,
                                                device: summary.device, metadata: summary.metadata ?? [:]))
        }
        return result
    }

    static func points(_ type: QuantityType, _ range: [String: JSONValue], _ call: Call) async throws -> [QuantityPoint] {
        var params = range
        params["type"] = .string(type.shortName)
        let answer = try await call("quantities", params)
        return try JSONBridge.decode([QuantityPoint].self, from: answer["points"] ?? .array([]))
    }

    /// The fields of a `series` row the report needs (open series rows carry extra fields).
    struct SampleSummaryFields: Decodable {
        var uuid: UUID
        var start: Date
        var end: Date
        var device: DeviceInfo?
        var metadata: Metadata?
    }
}
