import Control
import Foundation
import HealthModel
@testable import HeartQueries
import HeartStore
import TestBus
import Testing

/// The range reads stream the store (one sample at a time) and give the answers the whole-range reads gave: `stats`
/// per bucket and overall, `hrv` over every series (never across two), `series` page by page with a cursor (every
/// sample once, equal starts included), and a long `report` drawn as a dated daily trend.
@Suite("streamed range reads", .serialized)
struct StreamedReadTests {
    static func store(days: Int, hoursPerDay: Int = 24) throws -> (TestDirectory, StoreQueries) {
        let dir = try TestDirectory("streamed")
        try LongStore.write(dir.file("heart.db"), days: days, hoursPerDay: hoursPerDay)
        return (dir, StoreQueries(database: try HeartDatabase.openReadOnly(path: dir.file("heart.db"))))
    }

    static func range(days: Int) -> [String: JSONValue] {
        ["from": .string(ExportDates.iso(LongStore.t0)),
         "to": .string(ExportDates.iso(LongStore.t0.addingTimeInterval(Double(days) * 86_400)))]
    }

    static func call<C: ControlCall>(_ queries: StoreQueries, _ call: C.Type, _ params: [String: JSONValue]) throws -> C.Result {
        try C.result(try queries.handle(C.method, params))
    }

    @Test func statisticsAndHRVMatchTheWholeRangeComputation() throws {
        let (dir, queries) = try Self.store(days: 2)
        defer { dir.remove() }
        let from = LongStore.t0, to = LongStore.t0.addingTimeInterval(2 * 86_400)
        let points = try queries.database.quantities(type: .heartRate, from: from, to: to)
        var params = Self.range(days: 2)
        params["interval"] = .int(3600)
        let buckets = try Self.call(queries, StatsCall.self, params).buckets
        let expected = try QuantityStatisticsCollection(points: points, style: .discreteTemporallyWeighted, anchor: from,
                                                        interval: 3600, from: from, to: to).buckets
        #expect(buckets == expected)
        let overall = try Self.call(queries, StatsCall.self, Self.range(days: 2))
        // Over whole hours the store sums its hourly roll-up (`heart_rate_hourly`): the same points, summed hour by hour,
        // so a mean of fractional values may differ in its last bits from one running sum (whole bpm sum exactly).
        var pointwise = try QuantityStatistics(points: points, style: .discreteTemporallyWeighted, from: from, to: to)
        let average = try #require(overall.statistics?.average), expectedAverage = try #require(pointwise.average)
        #expect(abs(average - expectedAverage) <= 1e-12 * expectedAverage)
        pointwise.average = overall.statistics?.average
        #expect(overall.statistics == pointwise)

        let series = try queries.database.heartbeatSeries(from: from, to: to)
        let whole = try HRVMetrics(segments: series.flatMap { HRVMetrics.segments(of: $0.beats) })
        let streamed = try Self.call(queries, HRVCall.self, Self.range(days: 2))
        #expect(streamed.count == whole.count)
        #expect(abs(streamed.sdnnMs - whole.sdnnMs) < 1e-9 * whole.sdnnMs)
        #expect(abs((streamed.rmssdMs ?? 0) - (whole.rmssdMs ?? 1)) < 1e-9 * (whole.rmssdMs ?? 1))
        #expect(abs(streamed.meanHeartRateBpm - whole.meanHeartRateBpm) < 1e-9 * whole.meanHeartRateBpm)
    }

    @Test func seriesPagesListEverySampleOnceInOrder() throws {
        let (dir, queries) = try Self.store(days: 1)
        defer { dir.remove() }
        let everything = try queries.database.samples().map(\.uuid)
        #expect(everything.count == 48)
        for order in ["oldest", "newest"] {
            var listed: [UUID] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try queries.answer(SeriesCall.self, SeriesCall.Params(limit: 5, order: order == "newest" ? "newest" : nil,
                                                                                   cursor: cursor))
                listed += page.samples.map(\.summary.uuid)
                cursor = page.next
                pages += 1
            } while cursor != nil && pages < 100
            #expect(listed.count == 48 && Set(listed).count == 48, "\(order)")
            #expect(listed == (order == "newest" ? everything.reversed() : everything))
            #expect(pages == 10)
        }
        #expect(throws: ControlError.self) { try queries.answer(SeriesCall.self, SeriesCall.Params(cursor: "nope")) }
    }

    /// `heartctl --db` prints from `OpenSeriesQueries.answer`: the typed result as the store made it (no JSON tree in
    /// between), which must be what the same method's JSON (`handle`, the socket's answer) encodes.
    @Test func theTypedAnswerIsWhatTheJSONDecodesTo() throws {
        let (dir, queries) = try Self.store(days: 1)
        defer { dir.remove() }
        let reader = OpenSeriesQueries.checkpointed(queries)
        var page = SeriesCall.Params(limit: 7, includeOpen: true)
        repeat {
            let typed = try reader.answer(SeriesCall.self, page)
            #expect(JSONBridge.value(typed) == (try reader.handle(.series, JSONBridge.params(page))))
            // Each summary, read by column position (`SampleRecord(summaryRow:)`), is the stored sample's read in full.
            for listed in typed.samples {
                let stored = try #require(try queries.database.sample(uuid: listed.summary.uuid))
                #expect(SampleSummary(stored, anchor: listed.summary.anchor) == listed.summary)
            }
            page.cursor = typed.next
        } while page.cursor != nil
        let range = Self.range(days: 1)
        let stats = StatsCall.Params(StatsCall.Options(), range: RangeParams(from: range["from"]?.stringValue.map(QueryDate.text),
                                                                              to: range["to"]?.stringValue.map(QueryDate.text)))
        var hourly = stats
        hourly.interval = 3600
        var byDevice = hourly
        byDevice.byDevice = true
        for params in [stats, hourly, byDevice] {
            let typed = try reader.answer(StatsCall.self, params)
            #expect(typed.buckets?.count == (params.interval == nil ? nil : 24))
            #expect(JSONBridge.value(typed) == (try reader.handle(.stats, JSONBridge.params(params))))
        }
        #expect(throws: ControlError.self) { try reader.answer(SeriesCall.self, SeriesCall.Params(cursor: "nope")) }
    }

    /// Every read `heartctl --db` prints a table of takes the typed answer, as the socket's client takes the one it
    /// decodes, and hands it to the same printing function: the two must be one value. For each read method: the
    /// typed answer encodes to the method's JSON, and that JSON decodes to it again (`show` and `changes`: the JSON).
    @Test func everyReadsTypedAnswerIsWhatTheJSONDecodesTo() throws {
        let dir = try TestDirectory("typed")
        defer { dir.remove() }
        // One hour of beats (a full HRV analysis in a debug build), a stopped and an active session, a person.
        let path = dir.file("heart.db")
        try LongStore.write(path, days: 1, hoursPerDay: 1)
        let session = try LongStore.annotate(path)
        let writer = try HeartDatabase(path: path)
        try writer.startSession(Session(start: LongStore.t0.addingTimeInterval(3000)))
        try writer.close()
        let queries = StoreQueries(database: try HeartDatabase.openReadOnly(path: path))
        let reader = OpenSeriesQueries.checkpointed(queries)
        let day = RangeParams(from: .text(ExportDates.iso(LongStore.t0)),
                              to: .text(ExportDates.iso(LongStore.t0.addingTimeInterval(86_400))))
        let beats = try #require(try queries.database.heartbeatSeries(from: LongStore.t0, to: LongStore.t0.addingTimeInterval(3600)).first)

        func check<C: ControlCall>(_ call: C.Type, _ params: C.Params) throws -> C.Result where C.Result: Equatable {
            let typed = try reader.answer(call, params)
            let json = try reader.handle(C.method, JSONBridge.params(params))
            #expect(JSONBridge.value(typed) == json, "\(C.method.rawValue)")
            #expect(try C.result(json) == typed, "\(C.method.rawValue)")
            return typed
        }
        var stats = StatsCall.Params(StatsCall.Options(byDevice: true), range: day)
        #expect(try check(StatsCall.self, stats).devices?.count == 1)
        stats.interval = 900
        #expect(try check(StatsCall.self, stats).buckets?.count == 96)
        #expect(try check(HRVCall.self, HRVCall.Params(HRVCall.Options(), range: day)).analysis != nil)
        let one = try check(HRVCall.self, HRVCall.Params(HRVCall.Options(uuid: beats.uuid.uuidString)))
        #expect(one.count > 4_000 && one.analysis != nil)
        #expect(try check(BeatsCall.self, UUIDParams(uuid: beats.uuid.uuidString)).beats.count == beats.beats.count)
        #expect(try check(DevicesCall.self, NoParams()).devices.map(\.address) == [LongStore.address])
        let sessions = try check(SessionsCall.self, SessionsCall.Params())
        #expect(sessions.sessions.count == 2 && sessions.sessions.contains { $0.statistics?.analysis != nil })
        #expect(try check(SessionShowCall.self, UUIDParams(uuid: session.uuid.uuidString)).label == "rest")
        #expect(try check(PeopleCall.self, NoParams()).people.map(\.strap) == [LongStore.address])
        #expect(try check(QuantitiesCall.self, QuantitiesCall.Params(QuantitiesCall.Options(), range: day)).points.count == 3600)
        // Their summaries' ends are to the beat (sub-millisecond), the wire's to the millisecond: the JSON only.
        let changes = ChangesCall.Params(limit: 5)
        #expect(try reader.answer(ChangesCall.self, changes).added.count == 2)
        #expect(JSONBridge.value(try reader.answer(ChangesCall.self, changes)) == (try reader.handle(.changes, JSONBridge.params(changes))))
        let show = UUIDParams(uuid: beats.uuid.uuidString)
        #expect(JSONBridge.value(try reader.answer(ShowCall.self, show)) == (try reader.handle(.show, JSONBridge.params(show))))
    }

    @Test func aLongReportIsADatedDailyTrend() throws {
        let (dir, queries) = try Self.store(days: 5)
        defer { dir.remove() }
        // Ten days around five days of data: a day before, four after.
        var params = Self.range(days: 9)
        params["from"] = .string(ExportDates.iso(LongStore.t0.addingTimeInterval(-86_400)))
        let result = try Self.call(queries, ReportCall.self, params)
        let html = result.html
        #expect(result.beats > 500_000)
        #expect(html.contains("id=\"days\"") && html.contains("resting heart rate: the day"))
        // One row per day with data, no beat-level plot.
        let days = html.components(separatedBy: "<table id=\"days\">")[1].components(separatedBy: "</table>")[0]
        #expect(days.components(separatedBy: "<tr>").count - 2 == 5)
        #expect(!html.contains("class=\"rr-segment\"") && !html.contains("class=\"pair"))
        #expect(html.contains("class=\"hr-band\"") && html.contains("class=\"resting\"") && html.contains("rmssd"))
        // Dated ticks; never a row of 00:00.
        let ticks = html.matches(of: /class="tick"[^>]*>([^<]*)</).map { String($0.1) }
        #expect(ticks.contains { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil }, "\(ticks)")
        #expect(!ticks.contains("00:00"))
        // Time with gaps: within the five days that have beats (an hour ends ~10 s before the next begins), not the
        // empty days around them.
        let gaps = try #require(html.firstMatch(of: /first and the last beat\)<\/th><td class="num">([0-9.]+) s/).map { Double($0.1) ?? -1 })
        #expect(gaps > 0 && gaps < 5 * 24 * 15, "\(gaps)")
        // A day keeps the beat-level plots, with its date under the axis. (A day of one hour of beats: the day's
        // report runs the full HRV analysis, which in a debug build costs seconds per 10 000 beats.)
        let (hourDir, hour) = try Self.store(days: 1, hoursPerDay: 1)
        defer { hourDir.remove() }
        let day = try Self.call(hour, ReportCall.self, Self.range(days: 1))
        #expect(day.beats > 4_000)
        #expect(day.html.contains("class=\"rr-segment\"") && day.html.contains("class=\"pair") && !day.html.contains("id=\"days\""))
        #expect(day.html.contains("UTC, " + Ticks.day(LongStore.t0.timeIntervalSinceReferenceDate)))
    }
}
