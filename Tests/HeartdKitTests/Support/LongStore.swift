import Foundation
import HealthModel
import HeartStore

/// A store file of `days` days of one strap, written a day at a time: per hour one heartbeat series (~4 500 beats,
/// RR 740–880 ms) and one heart-rate series of 1 Hz points, both starting on the hour (equal starts: the listing's
/// tie-break is exercised). A day is ~108 000 beats and 86 400 points, as a strap's; with `hoursPerDay` only the
/// first hours of each day have data (a short store for reads whose cost grows with the beats, such as HRV analysis).
enum LongStore {
    static let t0 = Date(timeIntervalSince1970: 1_789_948_800) // a midnight UTC
    static let address = "A0:9E:1A:00:00:01"
    static let strap = DeviceInfo(name: "Polar H10", manufacturer: "Polar Electro Oy", model: "H10", localIdentifier: address)

    static func rr(_ i: Int) -> Double { 800 + 60 * sin(Double(i) / 3) + Double(i % 7) * 3 }

    static func write(_ path: String, days: Int, hoursPerDay: Int = 24) throws {
        let db = try HeartDatabase(path: path)
        defer { try? db.close() }
        var i = 0
        for day in 0..<days {
            var samples: [Sample] = []
            for hour in 0..<min(max(hoursPerDay, 1), 24) {
                let start = t0.addingTimeInterval(Double(day * 86_400 + hour * 3600))
                var beats: [Beat] = []
                var offset = 0.0
                while offset < 3590 {
                    beats.append(Beat(offset: offset, precededByGap: false))
                    offset += rr(i) / 1000
                    i += 1
                }
                samples.append(.heartbeatSeries(HeartbeatSeriesSample(
                    start: start, end: start.addingTimeInterval(beats.last?.offset ?? 0), beats: beats, device: strap)))
                let points = (0..<3600).map { s in
                    QuantityPoint(value: 70 + 5 * sin(Double(s) / 7) + Double(hour % 6),
                                  start: start.addingTimeInterval(Double(s)), end: start.addingTimeInterval(Double(s + 1)))
                }
                samples.append(.quantity(QuantitySample(
                    type: .heartRate, start: start, end: start.addingTimeInterval(3600), points: points,
                    aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted), device: strap)))
            }
            try db.save(samples)
        }
    }

    /// Adds to the store at `path` a session of the strap stopped with its statistics ("rest", minutes 10–30 of the
    /// first day) and a person wearing the strap; returns the session.
    @discardableResult
    static func annotate(_ path: String) throws -> Session {
        let db = try HeartDatabase(path: path)
        defer { try? db.close() }
        let session = try db.startSession(Session(label: "rest", start: t0.addingTimeInterval(600), devices: [address]))
        let stopped = try db.stopSession(uuid: session.uuid, end: t0.addingTimeInterval(1800))
        let person = try db.savePerson(Person(name: "Ada", heartRateMaximum: 185))
        _ = try db.assign(strap: address, to: person.uuid)
        return stopped
    }
}
