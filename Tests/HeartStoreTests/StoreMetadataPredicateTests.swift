import Foundation
import HealthModel
import Testing
@testable import HeartStore

/// `MetadataPredicate` in the store: a key repeated allows any of its values, different keys must all match
/// (HealthKit's `predicateForObjects(withMetadataKey:allowedValues:)` combined with AND) — for samples, for the
/// range reads behind stats and HRV, and for sessions. And the change list behind `subscribe`.
@Suite struct StoreMetadataPredicateTests {
    @Test func allowedValuesPerKeyAndAllKeys() throws {
        let db = try HeartDatabase.inMemory()
        let t = Fixtures.start
        let s1 = Fixtures.heartRateSample(start: t, count: 10, metadata: ["subject": "S01", "condition": "rest"])
        let s2 = Fixtures.heartRateSample(start: t.addingTimeInterval(20), count: 10, metadata: ["subject": "S02", "condition": "rest"])
        let s3 = Fixtures.heartRateSample(start: t.addingTimeInterval(40), count: 10, metadata: ["subject": "S03", "condition": "task"])
        let beats = Fixtures.heartbeatSample(start: t, count: 50, metadata: ["subject": "S02"])
        try db.save([s1, s2, s3, beats])
        func uuids(_ p: MetadataPredicate) throws -> Set<UUID> { Set(try db.samples(metadata: p).map(\.uuid)) }

        var either = MetadataPredicate()
        either.allow("subject", "S01")
        either.allow("subject", "S02")
        #expect(try uuids(either) == [s1.uuid, s2.uuid, beats.uuid])
        var both = either
        both.allow("condition", "rest")
        #expect(try uuids(both) == [s1.uuid, s2.uuid])
        both.require("condition", "task")
        #expect(try uuids(both).isEmpty)
        #expect(try uuids(["subject": "S04"]).isEmpty)
        #expect(try uuids([:]).count == 4)

        // The range reads filter the same way: points of S01 and S02 only, beats of S02's series only.
        let points = try db.quantities(type: .heartRate, from: t, to: t.addingTimeInterval(3600), metadata: either)
        #expect(points.count == 20)
        #expect(try db.heartbeatSeries(from: t, to: t.addingTimeInterval(3600), metadata: ["subject": "S01"]).isEmpty)
        #expect(try db.heartbeatSeries(from: t, to: t.addingTimeInterval(3600), metadata: either).map(\.uuid) == [beats.uuid])
        #expect(either.matches(["subject": "S02", "x": "y"]) && !both.matches(["subject": "S02"]))
    }

    @Test func sessionsFilterByMetadata() throws {
        let db = try HeartDatabase.inMemory()
        let a = try db.startSession(Session(label: "a", start: Fixtures.start, metadata: ["subject": "S01", "block": "1"]))
        let b = try db.startSession(Session(label: "b", start: Fixtures.start, metadata: ["subject": "S02", "block": "1"]))
        _ = try db.startSession(Session(label: "c", start: Fixtures.start, metadata: ["subject": "S03"]))
        var predicate = MetadataPredicate()
        predicate.allow("subject", "S01")
        predicate.allow("subject", "S02")
        #expect(Set(try db.sessions(SessionFilter(metadata: predicate)).map(\.uuid)) == [a.uuid, b.uuid])
        predicate.allow("block", "2")
        #expect(try db.sessions(SessionFilter(metadata: predicate)).isEmpty)
        #expect(try db.sessions(SessionFilter(metadata: ["block": "1", "subject": "S02"])).map(\.uuid) == [b.uuid])
    }

    @Test func theChangeListCarriesEachChangesAnchorAndAgreesWithChanges() throws {
        let db = try HeartDatabase.inMemory()
        let sample = Fixtures.heartRateSample(count: 5)
        try db.save([sample])
        let session = try db.startSession(Session(start: Fixtures.start))
        #expect(try db.delete(uuid: sample.uuid))
        try db.save([Fixtures.heartbeatSample(count: 5)])
        let list = try db.changeList(since: 0)
        #expect(list.changes.map(\.anchor) == list.changes.map(\.anchor).sorted())
        #expect(Set(list.changes.map(\.anchor)).count == list.changes.count)
        #expect(list.anchor == (try db.currentAnchor()))
        #expect(list.changes.contains(.deleted(uuid: sample.uuid, type: QuantityType.heartRate.identifier, anchor: list.changes
            .first { if case .deleted = $0 { true } else { false } }?.anchor ?? -1)))
        #expect(list.changes.contains { if case .session(let s) = $0 { s.uuid == session.uuid } else { false } })
        // Page by page from any anchor: exactly the changes after it, none twice.
        var anchor: Int64 = 0, seen: [Int64] = []
        while true {
            let page = try db.changeList(since: anchor, limit: 1)
            seen += page.changes.map(\.anchor)
            if page.changes.isEmpty { break }
            anchor = page.anchor
        }
        #expect(seen == list.changes.map(\.anchor))
        let summary = try db.changes(since: 0)
        #expect(summary.deleted == [sample.uuid] && summary.sessions.map(\.uuid) == [session.uuid] && summary.added.count == 1)
    }
}
