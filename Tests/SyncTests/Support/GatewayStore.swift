import Foundation
import TestBus
import HealthModel
import HeartStore
import Testing

/// A gateway's store on a real SQLite file, filled with heartbeat series (RR-derived beats, gaps) and heart-rate
/// series, for the sync tests; and the check that the central database holds exactly that store.
struct GatewayStore {
    let path: String
    let database: HeartDatabase

    static let strap = DeviceInfo(
        name: "Polar H10 1A2B3C4D", manufacturer: "Polar Electro Oy", model: "H10", firmwareVersion: "5.0.0",
        localIdentifier: "A0:9E:1A:12:34:56", metadata: [MetadataKey.serialNumber: "1A2B3C4D"])

    init(path: String) throws {
        self.path = path
        database = try HeartDatabase(path: path)
    }

    /// Saves `series` heartbeat series of `beats` beats (a gap every 97th beat) and as many heart-rate series,
    /// one save per pair (as the daemon does), starting at `start`.
    func fill(series: Int, beats: Int = 200, start: Date = Date(timeIntervalSince1970: 1_790_000_000),
              device: DeviceInfo = GatewayStore.strap, metadata: Metadata = [:]) throws {
        var t = start
        for s in 0..<series {
            var offsets: [Beat] = []
            var ticks = 0
            for i in 0..<beats {
                ticks += 800 + (i * 37 + s * 11) % 300
                offsets.append(Beat(offset: Double(ticks) / 1024, precededByGap: i == 0 || i % 97 == 0))
            }
            let end = t.addingTimeInterval(offsets.last?.offset ?? 0)
            let heartbeat = Sample.heartbeatSeries(HeartbeatSeriesSample(start: t, end: end, beats: offsets, device: device,
                                                                        metadata: metadata))
            var points: [QuantityPoint] = []
            for i in 0..<max(1, beats / 2) {
                let pointStart: Date = t.addingTimeInterval(Double(i) * 2)
                let bpm: Double = Double(60 + (i + s) % 50)
                points.append(QuantityPoint(value: bpm, start: pointStart, end: pointStart.addingTimeInterval(2)))
            }
            let rate = Sample.quantity(QuantitySample(
                type: .heartRate, start: t, end: points.last!.end, points: points,
                aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted), device: device))
            try database.save([heartbeat, rate])
            t = end.addingTimeInterval(5)
        }
    }

    /// The UUIDs, beats and heart-rate points the central database must hold for this store.
    func expected() throws -> (uuids: Set<UUID>, beats: Int, heartRate: Int, anchor: Int64) {
        let all = try database.samples()
        let beats = all.filter { $0.typeIdentifier == Sample.heartbeatSeriesIdentifier }.reduce(0) { $0 + $1.count }
        let rate = all.filter { $0.typeIdentifier == QuantityType.heartRate.identifier }.reduce(0) { $0 + $1.count }
        return (Set(all.map(\.uuid)), beats, rate, try database.currentAnchor())
    }

    /// Every sample of the store present exactly once centrally, nothing else of this gateway, deletions applied,
    /// expanded rows complete, and the delivered anchor at the store's.
    func expectDelivered(to server: PostgresServer, database name: String, gateway: String,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        let want = try expected()
        let gatewayId = try server.admin("SELECT id FROM gateways WHERE name = '\(gateway)'", database: name)
        let rows = try server.admin("SELECT uuid FROM samples WHERE gateway = \(gatewayId)", database: name)
        let central = rows.split(separator: "\n").map { UUID(uuidString: String($0))! }
        #expect(central.count == Set(central).count, "no sample twice", sourceLocation: sourceLocation)
        #expect(Set(central) == want.uuids, "central samples = store samples", sourceLocation: sourceLocation)
        let uuidList = want.uuids.map { "'\($0)'" }.joined(separator: ",")
        let filter = want.uuids.isEmpty ? "false" : "sample IN (\(uuidList))"
        #expect(try server.integer("SELECT count(*) FROM beats WHERE \(filter)", database: name) == want.beats,
                sourceLocation: sourceLocation)
        #expect(try server.integer("SELECT count(*) FROM heart_rate WHERE \(filter)", database: name) == want.heartRate,
                sourceLocation: sourceLocation)
        #expect(try server.integer("SELECT count(*) FROM beats WHERE NOT (\(filter)) AND sample IN (SELECT uuid FROM tombstones)",
                                   database: name) == 0, "no beats of deleted samples", sourceLocation: sourceLocation)
        #expect(try server.integer("SELECT delivered_anchor FROM gateways WHERE id = \(gatewayId)", database: name)
                == Int(want.anchor), sourceLocation: sourceLocation)
    }
}

extension GatewayStore {
    /// `hours` hours of a strap from `start`: per hour one heartbeat series (~4 400 beats) and one heart-rate series
    /// of 1 Hz points, saved a day at a time.
    func fillHours(_ hours: Int, start: Date) throws {
        var samples: [Sample] = []
        var i = 0
        for hour in 0..<hours {
            let begin = start.addingTimeInterval(Double(hour) * 3600)
            var beats: [Beat] = []
            var ticks = 0
            while ticks < 3590 * 1024 {
                beats.append(Beat(offset: Double(ticks) / 1024, precededByGap: false))
                ticks += 780 + (i * 37) % 160
                i += 1
            }
            samples.append(.heartbeatSeries(HeartbeatSeriesSample(
                start: begin, end: begin.addingTimeInterval(beats.last?.offset ?? 0), beats: beats, device: Self.strap)))
            let points = (0..<3600).map { s in
                QuantityPoint(value: Double(60 + (s / 7 + hour) % 40), start: begin.addingTimeInterval(Double(s)),
                              end: begin.addingTimeInterval(Double(s + 1)))
            }
            samples.append(.quantity(QuantitySample(
                type: .heartRate, start: begin, end: begin.addingTimeInterval(3600), points: points,
                aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted), device: Self.strap)))
            if samples.count >= 48 || hour == hours - 1 {
                try database.save(samples)
                samples = []
            }
        }
    }
}
