import Foundation
import HealthModel
import Testing
@testable import HeartStore

@Suite struct StoreChangeTrackingTests {
    func synced(_ id: String, version: String?, start: TimeInterval = 0) -> Sample {
        var metadata = [MetadataKey.syncIdentifier: id]
        metadata[MetadataKey.syncVersion] = version
        return Fixtures.heartRateSample(start: Fixtures.start.addingTimeInterval(start), count: 5, metadata: metadata)
    }

    @Test func higherSyncVersionReplacesAndOthersAreSkipped() throws {
        let db = try HeartDatabase.inMemory()
        let v1 = synced("day-1", version: "1")
        #expect(try db.save([v1]).saved == [v1.uuid])

        let sameVersion = synced("day-1", version: "1")
        let lower = synced("day-1", version: "0")
        let missing = synced("day-1", version: nil)
        let garbage = synced("day-1", version: "two")
        let skipped = try db.save([sameVersion, lower, missing, garbage])
        #expect(skipped.saved.isEmpty)
        #expect(skipped.skipped.map(\.reason) == [.staleSyncVersion, .staleSyncVersion, .invalidSyncVersion, .invalidSyncVersion])

        let v2 = synced("day-1", version: "2")
        let v3 = synced("day-1", version: "3")
        let replaced = try db.save([v2, v3])
        #expect(replaced.saved == [v2.uuid, v3.uuid])
        #expect(replaced.replaced == [v1.uuid, v2.uuid])
        #expect(try db.sample(uuid: v1.uuid) == nil)
        #expect(try db.sample(uuid: v3.uuid) == v3)
        #expect(try db.samples().map(\.uuid) == [v3.uuid])
        let changes = try db.changes(since: 0)
        #expect(changes.added.map(\.uuid) == [v3.uuid])
        #expect(changes.deleted == [v1.uuid, v2.uuid])
        // Another identifier is independent.
        #expect(try db.save([synced("day-2", version: "1")]).saved.count == 1)
    }

    @Test func duplicateAndDeletedUUIDsAreSkipped() throws {
        let db = try HeartDatabase.inMemory()
        let sample = Fixtures.heartbeatSample(count: 4)
        try db.save([sample])
        #expect(try db.save([sample]).skipped.map(\.reason) == [.duplicateUUID])
        #expect(try db.delete(uuid: sample.uuid))
        #expect(try db.save([sample]).skipped.map(\.reason) == [.deleted])
    }

    @Test func deleteLeavesTombstoneAndChangesFollowAnchors() throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let a = Fixtures.heartbeatSample(count: 4, seed: 1)
        let b = Fixtures.heartbeatSample(count: 4, seed: 2)
        let c = Fixtures.heartRateSample(count: 4)
        try db.save([a, b])
        let first = try db.changes(since: 0)
        #expect(first.added.map(\.uuid) == [a.uuid, b.uuid])
        #expect(first.deleted.isEmpty)
        #expect(first.added.first?.device == Fixtures.strap)

        #expect(try db.delete(uuid: a.uuid))
        #expect(try !db.delete(uuid: a.uuid))
        #expect(try !db.delete(uuid: UUID()))
        try db.save([c])
        let second = try db.changes(since: first.anchor)
        #expect(second.added.map(\.uuid) == [c.uuid])
        #expect(second.deleted == [a.uuid])
        #expect(second.anchor > first.anchor)

        let none = try db.changes(since: second.anchor)
        #expect(none.added.isEmpty && none.deleted.isEmpty)
        #expect(none.anchor == second.anchor)

        // From the beginning: a was added and deleted since, so it is only reported deleted.
        let all = try db.changes(since: 0)
        #expect(all.added.map(\.uuid) == [b.uuid, c.uuid])
        #expect(all.deleted == [a.uuid])
    }

    @Test func changesPageThroughWithALimit() throws {
        let db = try HeartDatabase.inMemory()
        let samples = (0..<7).map { Fixtures.heartbeatSample(count: 2, seed: UInt64($0)) }
        try db.save(samples)
        try db.delete(uuid: samples[1].uuid)
        try db.delete(uuid: samples[4].uuid)
        var anchor: Int64 = 0
        var added: [UUID] = []
        var deleted: [UUID] = []
        var pages = 0
        while true {
            let page = try db.changes(since: anchor, limit: 2)
            #expect(page.added.count + page.deleted.count <= 2)
            #expect(page.anchor >= anchor)
            if page.added.isEmpty && page.deleted.isEmpty { break }
            added += page.added.map(\.uuid)
            deleted += page.deleted
            anchor = page.anchor
            pages += 1
        }
        #expect(added == [0, 2, 3, 5, 6].map { samples[$0].uuid })
        #expect(deleted == [samples[1].uuid, samples[4].uuid])
        #expect(pages == 4)
        #expect(anchor == (try db.currentAnchor()))
    }
}
