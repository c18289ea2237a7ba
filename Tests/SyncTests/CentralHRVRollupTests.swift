import Foundation
import HealthModel
import HeartQueries
import HeartStore
import Logging
import TestBus
import Testing
@testable import Sync

/// The central HRV roll-up (`hrv_hourly`, `CentralHRVRollup`) holds the store's sums: over any range, the sums
/// `--central hrv` adds up in PostgreSQL give what the gateway's store gives (its own `hrv_hourly`, and the beats
/// themselves), series with gaps and hours crossed included, and a re-delivered batch adds nothing.
@Suite(.serialized) struct CentralHRVRollupTests {
    let server: PostgresServer

    init() throws { server = try PostgresServer.shared.get() }

    @Test func centralHRVSumsEqualTheStoresWithGapsAndARedeliveredBatch() async throws {
        let db = try server.createDatabase()
        let a = try SyncFixture(url: db.url)
        defer { a.remove() }
        // From 23:50 UTC: series cross hour and day bounds; `fill` marks a gap every 97 beats.
        let t0 = Date(timeIntervalSince1970: 1_790_034_600)
        try a.store.fill(series: 4, beats: 600, start: t0)
        var other = GatewayStore.strap
        other.localIdentifier = "A0:9E:1A:65:43:21"
        try a.store.fill(series: 2, beats: 400, start: t0.addingTimeInterval(97), device: other)
        try await a.runner().run(once: true)
        let rows = try server.integer("SELECT count(*) FROM hrv_hourly", database: db.name)
        let beats = try server.integer("SELECT sum(n) FROM hrv_hourly", database: db.name)
        #expect(rows > 6 && beats > 3000)
        // The whole range delivered again (the anchor set back, as after a crash between commit and ack): the
        // samples are present, so no row is added twice.
        try server.admin("UPDATE gateways SET delivered_anchor = 0", database: db.name)
        try await a.runner().run(once: true)
        #expect(try server.integer("SELECT count(*) FROM hrv_hourly", database: db.name) == rows)
        #expect(try server.integer("SELECT sum(n) FROM hrv_hourly", database: db.name) == beats)

        let reader = try await CentralReader.open(connector: a.connector(), logger: Logger(label: "test"))
        defer { Task { await reader.close() } }
        let ranges: [(from: Date, to: Date, device: String?)] = [
            (t0, t0.addingTimeInterval(7200), nil),
            (t0, t0.addingTimeInterval(7200), other.localIdentifier),
            (t0.addingTimeInterval(600), t0.addingTimeInterval(900), nil),
            (t0.addingTimeInterval(1500), t0.addingTimeInterval(7200), GatewayStore.strap.localIdentifier),
        ]
        for r in ranges {
            let label = "\(r.from)–\(r.to) \(r.device ?? "all")"
            let central = try #require(try await reader.heartbeatRollup(
                CentralReader.Filter(device: r.device, from: r.from, to: r.to), beatsAbove: 0), "\(label)")
            // The store's own hourly rows, summed.
            var stored = HeartbeatHourSums()
            var rateSum = 0.0
            #expect(try a.store.database.heartbeatRollup(from: r.from, to: r.to, device: r.device, beatsAbove: 0) { h in
                stored.count += h.count
                stored.differences += h.differences
                stored.over50 += h.over50
                stored.over20 += h.over20
                stored.squaredDifferences += h.squaredDifferences
                rateSum += h.rateSum
            })
            #expect(central.count == stored.count && central.differences == stored.differences, "\(label)")
            #expect(central.over50 == stored.over50 && central.over20 == stored.over20, "\(label)")
            #expect(abs(central.squaredDifferences - stored.squaredDifferences) <= 1e-9 * stored.squaredDifferences, "\(label)")
            #expect(abs(central.rateSum - rateSum) <= 1e-9 * rateSum, "\(label)")
            // The metrics from the sums against the metrics from the beats (what `--db` answers below the limit).
            var streamed = HRVRange()
            try a.store.database.forEachHeartbeatSeries(from: r.from, to: r.to, device: r.device) { streamed.add($0) }
            let fromBeats = try streamed.result(), fromSums = try HRVRange.rolledUp(central)
            #expect(fromSums.rolledUp == HRVCall.Measure.allCases)
            #expect(fromSums.count == fromBeats.count, "\(label)")
            for (x, y) in [(fromSums.sdnnMs, fromBeats.sdnnMs), (fromSums.rmssdMs ?? 0, fromBeats.rmssdMs ?? 0),
                           (fromSums.pnn50Percent ?? 0, fromBeats.pnn50Percent ?? 0),
                           (fromSums.meanHeartRateBpm, fromBeats.meanHeartRateBpm)] {
                #expect(abs(x - y) <= 1e-9 * max(1, abs(y)), "\(label): \(x) from the sums, \(y) from the beats")
            }
        }
        // Not past the limit the caller streams the beats: nil.
        let recorded = try server.integer("SELECT sum(count) FROM samples WHERE type = '\(Sample.heartbeatSeriesIdentifier)'",
                                          database: db.name)
        let all = CentralReader.Filter(from: t0, to: t0.addingTimeInterval(7200))
        #expect(try await reader.heartbeatRollup(all, beatsAbove: recorded) == nil)
        #expect(try await reader.heartbeatRollup(all, beatsAbove: recorded - 1) != nil)
        // A deleted series takes its hours with it.
        let series = try #require(try a.store.database.samples(type: Sample.heartbeatSeriesIdentifier).first)
        let itsRows = "SELECT count(*) FROM hrv_hourly WHERE sample = '\(series.uuid.uuidString)'"
        #expect(try server.integer(itsRows, database: db.name) > 0)
        try a.store.database.delete(uuid: series.uuid)
        try await a.runner().run(once: true)
        #expect(try server.integer(itsRows, database: db.name) == 0)
    }
}
