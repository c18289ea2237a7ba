import Control
import Foundation
import HealthModel
import HeartStore

/// What a report covers: a session, or [from, to) of one device or every device.
public enum ReportScope: Sendable, Hashable {
    case session(UUID)
    case range(from: Date, to: Date, device: String?)
}

/// `report`: the HTML report of a session or a range, read from the store and rendered here, so the daemon (socket)
/// and `heartctl --db` answer it with the same code, and no raw beat or point crosses the socket (a 24-hour session
/// is ~100 000 beats and ~86 400 heart-rate points; the page is a few hundred KB).
extension StoreQueries {
    /// `session` (UUID), or `from` (default `to` − 1 day), `to` (default now) and `device`. Result: `html`,
    /// `bytes`, `devices` (count), `beats`.
    func report(_ p: QueryParameters) throws -> ReportCall.Result {
        let scope: ReportScope
        if p.params["session"] != nil {
            guard p.params["from"] == nil, p.params["to"] == nil, p.params["device"] == nil else {
                throw ControlError(.invalidParams, "'session' cannot be combined with 'from', 'to' or 'device'")
            }
            scope = .session(try p.uuid("session"))
        } else {
            // The same window as `export`: `to` defaults to now, `from` to a day before it.
            let window = try Self.scope(of: .export, p.params, now: p.now)
            let (from, to) = try range(window)
            scope = .range(from: from, to: to, device: window.device)
        }
        let data = try reportData(scope, now: p.now)
        let html = ReportPage.render(data)
        return ReportCall.Result(html: html, devices: data.devices.count, beats: data.statistics.beats)
    }

    /// The report's data: for a session its stored statistics (so far, while active) and what its devices stored in
    /// [start, end) — the same series and points `sessionStatistics` reads; for a range, `SessionStatistics` over it.
    public func reportData(_ scope: ReportScope, now: Date = Date()) throws -> ReportData {
        var session: Session?
        let from: Date, to: Date
        var addresses: [String]
        switch scope {
        case .session(let uuid):
            guard var s = try database.session(uuid: uuid) else { throw ControlError(.notFound, "no session \(uuid)") }
            if s.isActive { s.statistics = try database.sessionStatistics(s, until: now) }
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
        let known = try database.devices()
        let everyDevice = addresses.isEmpty
        if everyDevice { addresses = known.compactMap(\.address) }
        var devices: [ReportDevice] = []
        var energy: [QuantityPoint] = []
        for address in addresses {
            let info = known.first { $0.address?.caseInsensitiveCompare(address) == .orderedSame }?.info
            let series = try database.heartbeatSeries(from: from, to: to, device: address)
            let heartRate = try database.quantities(type: .heartRate, from: from, to: to, device: address)
            if session == nil { energy += try database.quantities(type: .activeEnergyBurned, from: from, to: to, device: address) }
            // Every device: those with data in the range; named ones always (a session may cover a sensor that never came).
            if everyDevice && series.isEmpty && heartRate.isEmpty { continue }
            devices.append(ReportDevice(address: address, info: info, heartRate: heartRate, series: series))
        }
        let statistics = try session?.statistics ?? SessionStatistics(
            start: from, end: to, heartbeatSeries: devices.flatMap(\.series), heartRate: devices.flatMap(\.heartRate),
            energy: energy)
        return ReportData(session: session, from: from, to: to, statistics: statistics, devices: devices, generated: now)
    }
}
