import Foundation
import GRDB
import HealthModel
import Testing
@testable import HeartStore

@Suite struct StoreSessionTests {
    @Test func aSessionIsStoredAtItsStartAndGetsItsStatisticsWhenItStops() throws {
        let dir = try TempDirectory()
        let beats = Fixtures.heartbeatSample(count: 300)
        let hr = Fixtures.heartRateSample(count: 200)
        let started: Session
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            try db.save([beats, hr])
            started = try db.startSession(Session(label: "block A", start: Fixtures.start, devices: [Fixtures.strap.localIdentifier!],
                                                  metadata: ["subject": "S01"]))
            #expect(started.anchor != nil)
            try db.close()
        }
        // Reopened (as after a crash): still active.
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(try db.sessions(SessionFilter(activeOnly: true)).map(\.uuid) == [started.uuid])
        let end = Fixtures.start.addingTimeInterval(150)
        let stopped = try db.stopSession(uuid: started.uuid, end: end)
        #expect(stopped.end == end)
        #expect(stopped.metadata == ["subject": "S01"])
        #expect(stopped.label == "block A")
        let stats = try #require(stopped.statistics)
        #expect(stats.durationSeconds == 150)
        // The same numbers as the model computes from the stored samples.
        guard case .heartbeatSeries(let series) = beats, case .quantity(let rate) = hr else { Issue.record(); return }
        let expected = try SessionStatistics(start: Fixtures.start, end: end, heartbeatSeries: [series],
                                             heartRate: rate.points, energy: [])
        #expect(stats == expected)
        #expect(stats.beats > 100 && stats.sdnnMs != nil && stats.heartRateAverage != nil)
        #expect(stats.analysis != nil)
        #expect(try db.session(uuid: started.uuid) == stopped)
        #expect(try db.sessions(SessionFilter(activeOnly: true)).isEmpty)
        #expect(throws: StoreError(.conflict, "session \(started.uuid) has already ended")) {
            try db.stopSession(uuid: started.uuid, end: end)
        }
        #expect(throws: StoreError.self) { try db.stopSession(uuid: UUID(), end: end) }
    }

    @Test func aSessionForAnotherDeviceSeesNoneOfTheStrapsBeats() throws {
        let db = try HeartDatabase.inMemory()
        try db.save([Fixtures.heartbeatSample(count: 100)])
        let s = try db.startSession(Session(start: Fixtures.start, devices: ["11:22:33:44:55:66"]))
        let stopped = try db.stopSession(uuid: s.uuid, end: Fixtures.start.addingTimeInterval(60))
        #expect(stopped.statistics?.beats == 0)
        #expect(stopped.statistics?.gapSeconds == 60)
    }

    @Test func listingsFilterByRangeLabelAndActivity() throws {
        let db = try HeartDatabase.inMemory()
        let t = Fixtures.start
        let a = try db.startSession(Session(label: "round", start: t))
        let b = try db.startSession(Session(label: "rest", start: t.addingTimeInterval(100)))
        try db.stopSession(uuid: a.uuid, end: t.addingTimeInterval(50))
        #expect(try db.sessions().map(\.uuid) == [a.uuid, b.uuid])
        #expect(try db.sessions(SessionFilter(label: "round")).map(\.uuid) == [a.uuid])
        #expect(try db.sessions(SessionFilter(activeOnly: true)).map(\.uuid) == [b.uuid])
        #expect(try db.sessions(SessionFilter(from: t.addingTimeInterval(60))).map(\.uuid) == [b.uuid])
        #expect(try db.sessions(SessionFilter(to: t.addingTimeInterval(60))).map(\.uuid) == [a.uuid])
    }

    @Test func sessionsArePartOfAnchoredChangesAndTombstones() throws {
        let db = try HeartDatabase.inMemory()
        let s = try db.startSession(Session(label: "x", start: Fixtures.start))
        let first = try db.changes(since: 0)
        #expect(first.sessions.map(\.uuid) == [s.uuid] && first.sessions.first?.isActive == true)
        let stopped = try db.stopSession(uuid: s.uuid, end: Fixtures.start.addingTimeInterval(10))
        let second = try db.changes(since: first.anchor)
        #expect(second.sessions == [stopped])
        #expect(try db.deleteSession(uuid: s.uuid))
        let third = try db.changes(since: second.anchor)
        #expect(third.sessions.isEmpty && third.deleted == [s.uuid])
        #expect(try db.session(uuid: s.uuid) == nil)
        // A deleted UUID is never reused.
        #expect(throws: StoreError.self) { try db.startSession(Session(uuid: s.uuid, start: Fixtures.start)) }
        // A limit of 1 pages through the changes one at a time.
        let one = try db.changes(since: 0, limit: 1)
        #expect(one.added.count + one.deleted.count + one.sessions.count == 1)
    }

    @Test func samplesFilterByMetadataLikeHealthKitsMetadataPredicate() throws {
        let db = try HeartDatabase.inMemory()
        let session = UUID().uuidString
        let inside = Fixtures.heartRateSample(count: 5, metadata: [MetadataKey.session: session, "odd \"key\"": "1"])
        let outside = Fixtures.heartRateSample(start: Fixtures.start.addingTimeInterval(10), count: 5,
                                               metadata: [MetadataKey.session: UUID().uuidString])
        let untagged = Fixtures.heartbeatSample(count: 5)
        try db.save([inside, outside, untagged])
        #expect(try db.samples(metadata: [MetadataKey.session: session]).map(\.uuid) == [inside.uuid])
        #expect(try db.samples(metadata: [MetadataKey.session: session, "odd \"key\"": "1"]).map(\.uuid) == [inside.uuid])
        #expect(try db.samples(metadata: [MetadataKey.session: session, "odd \"key\"": "2"]).isEmpty)
        #expect(try db.samples().count == 3)
    }

    @Test func aHigherSyncVersionReplacesASession() throws {
        let db = try HeartDatabase.inMemory()
        func synced(_ v: String?) -> Session {
            var m = [MetadataKey.syncIdentifier: "round-7"]
            m[MetadataKey.syncVersion] = v
            return Session(start: Fixtures.start, metadata: m)
        }
        let v1 = try db.startSession(synced("1"))
        #expect(throws: StoreError.self) { try db.startSession(synced("1")) }
        #expect(throws: StoreError.self) { try db.startSession(synced(nil)) }
        let v2 = try db.startSession(synced("2"))
        #expect(try db.sessions().map(\.uuid) == [v2.uuid])
        #expect(try db.changes(since: v1.anchor ?? 0).deleted == [v1.uuid])
    }

    @Test func statisticsStoredWithoutTheAnalysisStillRead() throws {
        let db = try HeartDatabase.inMemory()
        try db.save([Fixtures.heartbeatSample(count: 300)])
        let started = try db.startSession(Session(start: Fixtures.start))
        let stopped = try db.stopSession(uuid: started.uuid, end: Fixtures.start.addingTimeInterval(150))
        #expect(stopped.statistics?.analysis != nil)
        // The JSON an older heartd wrote: no "analysis".
        let old = #"{"beats":151,"durationSeconds":150,"gapSeconds":0,"pnn50Percent":0,"rmssdMs":0,"sdnnMs":0}"#
        try db.writer.write { try $0.execute(sql: "UPDATE sessions SET statistics = ?", arguments: [old]) }
        let read = try #require(try db.session(uuid: started.uuid)?.statistics)
        #expect(read.analysis == nil)
        #expect(read.beats == 151 && read.durationSeconds == 150)
    }

    /// The daemon's stop: the statistics without the analysis first (the reply), then `storeSessionAnalysis` adds it
    /// with a new anchor — the same analysis a stop with it stores — once only; an active session gets none.
    @Test func aStopWithoutTheAnalysisGetsItAddedAfter() throws {
        let db = try HeartDatabase.inMemory()
        try db.save([Fixtures.heartbeatSample(count: 300)])
        let end = Fixtures.start.addingTimeInterval(150)
        let started = try db.startSession(Session(start: Fixtures.start))
        #expect(try db.storeSessionAnalysis(uuid: started.uuid) == nil, "active: nothing to add")
        let stopped = try db.stopSession(uuid: started.uuid, end: end, analysis: false)
        #expect(stopped.statistics?.analysis == nil && stopped.statistics?.rmssdMs != nil)
        let analysed = try #require(try db.storeSessionAnalysis(uuid: started.uuid))
        let whole = try db.sessionStatistics(stopped, until: end)
        #expect(analysed.statistics == whole, "the statistics a stop with the analysis stores")
        #expect(analysed.anchor ?? 0 > stopped.anchor ?? 0)
        #expect(try db.session(uuid: started.uuid) == analysed)
        #expect(try db.changes(since: stopped.anchor ?? 0).sessions.map(\.uuid) == [started.uuid])
        #expect(try db.storeSessionAnalysis(uuid: started.uuid) == nil, "already there")
        #expect(try db.storeSessionAnalysis(uuid: UUID()) == nil)
    }
}
