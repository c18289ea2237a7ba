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
    /// `rollups`: whether a long range's trend reads the store's hourly roll-ups for its whole hours (false: every
    /// beat and point streamed, the reference the roll-up path is tested against).
    public func reportData(_ scope: ReportScope, now: Date = Date(), rollups: Bool = true) throws -> ReportData {
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
        func info(_ address: String) -> DeviceInfo? {
            known.first { $0.address?.caseInsensitiveCompare(address) == .orderedSame }?.info
        }
        if to.timeIntervalSince(from) > ReportTrend.threshold {
            return try trendData(session: session, from: from, to: to, addresses: addresses, everyDevice: everyDevice,
                                 info: info, now: now, rollups: rollups)
        }
        var devices: [ReportDevice] = []
        var energy: [QuantityPoint] = []
        for address in addresses {
            let series = try database.heartbeatSeries(from: from, to: to, device: address)
            let heartRate = try database.quantities(type: .heartRate, from: from, to: to, device: address)
            if session == nil { energy += try database.quantities(type: .activeEnergyBurned, from: from, to: to, device: address) }
            // Every device: those with data in the range; named ones always (a session may cover a sensor that never came).
            if everyDevice && series.isEmpty && heartRate.isEmpty { continue }
            devices.append(ReportDevice(address: address, info: info(address), heartRate: heartRate, series: series))
        }
        var statistics = try session?.statistics ?? SessionStatistics(
            start: from, end: to, heartbeatSeries: devices.flatMap(\.series), heartRate: devices.flatMap(\.heartRate),
            energy: energy)
        if session == nil {
            // A range's time with gaps counts only within the span that has beats, not the hours around them.
            let t0 = from.timeIntervalSinceReferenceDate, t1 = to.timeIntervalSinceReferenceDate
            var first = Double.infinity, last = -Double.infinity
            for s in devices.flatMap(\.series) {
                let base = s.start.timeIntervalSinceReferenceDate
                for beat in s.beats where base + beat.offset >= t0 && base + beat.offset < t1 {
                    first = min(first, base + beat.offset)
                    last = max(last, base + beat.offset)
                }
            }
            statistics.gapSeconds = first <= last ? max(0, statistics.gapSeconds - (first - t0) - (t1 - last)) : 0
        }
        return ReportData(session: session, from: from, to: to, statistics: statistics, devices: devices, generated: now,
                          hrv: Self.analysis(devices, from: from, to: to))
    }

    /// `HRVAnalysis` of the devices' beats inside [from, to): each series on its own segments (its first beat in
    /// the range starts one), as `hrv` over a range makes them; nil with too few intervals.
    static func analysis(_ devices: [ReportDevice], from: Date, to: Date) -> HRVAnalysis? {
        SessionStatistics.analysis(devices.flatMap(\.series), from: from, to: to)
    }

    /// A long range's report data: every device's heart rate and series read from the store into the trend's
    /// buckets; a session keeps its stored statistics. With `rollups` (and a store that has them), whole UTC hours
    /// come from the hourly roll-ups — heart-rate totals, HRV sums — and only the rest is streamed: the range's
    /// partial hours, heart-rate points crossing an hour's end, the first and last rolled-up hour's points (for the
    /// span with data), energy, and the beats themselves for beat counts and time with gaps (no roll-up holds runs).
    func trendData(session: Session?, from: Date, to: Date, addresses: [String], everyDevice: Bool,
                   info: (String) -> DeviceInfo?, now: Date, rollups: Bool) throws -> ReportData {
        var builder = try ReportTrendBuilder(from: from, to: to)
        var devices: [ReportDevice] = []
        let beatHours = rollups ? Self.rolledUpBeatHours(from: from, to: to) : nil
        for address in addresses {
            var any = false
            if let beatHours, try database.heartbeatHours(from: from, to: to, device: address, hours: beatHours, {
                builder.add(hour: $0, sums: $1)
            }) {
                builder.rolledUpBeats = (beatHours.lower.timeIntervalSinceReferenceDate,
                                         beatHours.upper.timeIntervalSinceReferenceDate)
            } else {
                builder.rolledUpBeats = nil
            }
            try database.forEachHeartbeatSeries(from: from, to: to, device: address) { any = true; builder.add(series: $0) }
            var rolledHours: (first: Date, last: Date)?
            let answered = try rollups && database.heartRateRollup(from: from, to: to, device: address, totals: { hour, totals in
                any = true
                builder.add(hour: hour, totals: totals)
                rolledHours = (min(rolledHours?.first ?? hour, hour), max(rolledHours?.last ?? hour, hour))
            }, point: {
                any = true
                builder.add(heartRate: $0)
            })
            if !answered {
                try database.forEachQuantityPoint(type: .heartRate, from: from, to: to, device: address) {
                    any = true
                    builder.add(heartRate: $0)
                }
            } else if let rolledHours {
                // The span with data starts and ends in the first and last rolled-up hours unless a streamed point
                // lies beyond them: read those two hours' points for it.
                for hour in Set([rolledHours.first, rolledHours.last]) {
                    let end = hour.addingTimeInterval(3600)
                    try database.forEachQuantityPoint(type: .heartRate, from: hour, to: end, device: address) { p in
                        if p.start >= hour, p.start < end { builder.span(heartRate: p) }
                    }
                }
            }
            if session == nil {
                try database.forEachQuantityPoint(type: .activeEnergyBurned, from: from, to: to, device: address) {
                    builder.add(energy: $0)
                }
            }
            if everyDevice && !any { continue }
            devices.append(ReportDevice(address: address, info: info(address), heartRate: [], series: []))
        }
        let (trend, statistics) = builder.finish()
        return ReportData(session: session, from: from, to: to, statistics: session?.statistics ?? statistics,
                          devices: devices, generated: now, trend: trend)
    }

    /// The whole UTC hours whose HRV the trend takes from `hrv_hourly`: from the second hour boundary after `from`
    /// (an interval ending in the first whole hour could begin before `from`, outside the range) to the last one
    /// before `to`. Nil when none.
    static func rolledUpBeatHours(from: Date, to: Date) -> (lower: Date, upper: Date)? {
        HeartDatabase.rollupHours(from: from.addingTimeInterval(3600), to: to)
    }
}
