import Foundation
import HealthModel
import Testing
@testable import HeartStore

/// The journal's delta records: a checkpoint of a growing series writes what it added, and recovery rebuilds
/// exactly the newest snapshot from its full record and the deltas after it.
@Suite struct CheckpointJournalDeltaTests {
    static let allBeats = Fixtures.beats(count: 1200, seed: 11)
    static let allPoints = Fixtures.heartRatePoints(count: 1200, seed: 12)

    /// The heartbeat series with its first `count` beats.
    static func beats(_ uuid: UUID, _ count: Int) -> Sample {
        let beats = Array(allBeats.prefix(count))
        return .heartbeatSeries(HeartbeatSeriesSample(
            uuid: uuid, start: Fixtures.start, end: Fixtures.start.addingTimeInterval(beats.last?.offset ?? 0),
            beats: beats, device: Fixtures.strap, metadata: ["k": "v"]))
    }

    /// The heart-rate series with its first `count` values, as the pipeline snapshots it: the last value is the one
    /// still held, ending at the snapshot's time, and gets its real end in the next snapshot.
    static func heartRate(_ uuid: UUID, _ count: Int) -> Sample {
        var points = Array(allPoints.prefix(count))
        points[count - 1].end = points[count - 1].start.addingTimeInterval(0.25)
        return .quantity(QuantitySample(
            uuid: uuid, type: .heartRate, start: Fixtures.start, end: points[count - 1].end, points: points,
            aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted),
            device: Fixtures.strap, metadata: ["k": "v"]))
    }

    /// What recovery must give for `sample`: its items through the store's encoding (quantity dates on whole ms).
    static func stored(_ sample: Sample) throws -> SeriesItems {
        try SeriesItems.decode(try StoreCoding.encodeContents(sample), kind: sample.typeIdentifier, start: sample.start)
    }

    static func recovered(_ db: HeartDatabase, _ uuid: UUID) throws -> SeriesItems? {
        switch try db.sample(uuid: uuid) {
        case .heartbeatSeries(let series)?: .beats(series.beats)
        case .quantity(let quantity)?: .points(quantity.points)
        case nil: nil
        }
    }

    static func journalSize(_ db: HeartDatabase) throws -> Int {
        let path = try #require(db.journalPath)
        return try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    @Test func growingSeriesAreJournaledAsDeltasAndRecoveredExactly() throws {
        let dir = try TempDirectory()
        let hb = UUID(), hr = UUID()
        var fullRewrite = 0
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db)
            for count in 1...400 {
                let batch = [Self.beats(hb, count), Self.heartRate(hr, count)]
                fullRewrite += try batch.reduce(0) { $0 + (try StoreCoding.encodeContents($1)).count }
                try writer.write(batch)
            }
            #expect(writer.compactions == 0)
            let size = try Self.journalSize(db)
            #expect(size < fullRewrite / 4, "\(size) bytes journaled; whole snapshots would have been \(fullRewrite)")
            // The process dies here.
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(Set(try db.recoverCheckpoints().map(\.uuid)) == [hb, hr])
        #expect(try Self.recovered(db, hb) == Self.stored(Self.beats(hb, 400)))
        guard case .points(let points)? = try Self.recovered(db, hr) else {
            Issue.record("the heart-rate series was not recovered")
            return
        }
        // The held value's end, as the last snapshot had it: every earlier value got its real end from a delta.
        #expect(.points(points) == (try Self.stored(Self.heartRate(hr, 400))))
    }

    @Test func aTornDeltaLeavesTheSeriesAsTheDeltaBeforeItHadIt() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db)
            for count in 1...50 { try writer.write([Self.heartRate(uuid, count)]) }
        }
        let path = dir.databasePath + "-open"
        let full = try Data(contentsOf: URL(fileURLWithPath: path))
        try full.prefix(full.count - 3).write(to: URL(fileURLWithPath: path))  // a crash inside the 50th write
        let db = try HeartDatabase(path: dir.databasePath)
        let recovery = try db.recoverOpenSeries()
        #expect(recovery.samples.map(\.uuid) == [uuid])
        #expect(recovery.discardedJournalBytes > 0)
        #expect(try Self.recovered(db, uuid) == Self.stored(Self.heartRate(uuid, 49)))
    }

    @Test func aDeltaWithoutItsSeriesIsDamageNotData() throws {
        // A delta can only follow its series' full record; one that does not (the file was damaged) stops the scan.
        let dir = try TempDirectory()
        let path = dir.databasePath + "-open"
        var bytes = OpenSeriesJournal.fileHeader
        JournalRecordCoding.frameDelta(JournalDelta(uuid: UUID(), end: Fixtures.start, updatedAt: Fixtures.start, keep: 0,
                                                    tail: try HeartbeatSeriesCoding.encode(Array(Self.allBeats.prefix(3)))),
                                       into: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let db = try HeartDatabase(path: dir.databasePath)
        let recovery = try db.recoverOpenSeries()
        #expect(recovery.samples.isEmpty)
        #expect(recovery.discardedJournalBytes == bytes.count - OpenSeriesJournal.fileHeader.count)
    }

    @Test func aSeriesChangedBeforeItsTailIsJournaledWhole() throws {
        // The writer checks the journaled prefix; a snapshot that changed it (or shrank, or got new metadata) must
        // still be recovered exactly.
        let uuid = UUID()
        guard case .heartbeatSeries(var changed) = Self.beats(uuid, 40) else { return }
        changed.beats[5].precededByGap.toggle()
        var renamed = changed
        renamed.metadata["k"] = "w"
        let snapshots: [Sample] = [Self.beats(uuid, 30), .heartbeatSeries(changed), Self.beats(uuid, 10),
                                   .heartbeatSeries(renamed)]
        for (i, last) in snapshots.enumerated() {
            let dir = try TempDirectory()
            do {
                let writer = try CheckpointWriter(database: try HeartDatabase(path: dir.databasePath))
                for snapshot in snapshots.prefix(i + 1) { try writer.write([snapshot]) }
            }
            let db = try HeartDatabase(path: dir.databasePath)
            _ = try db.recoverCheckpoints()
            #expect(try Self.recovered(db, uuid) == Self.stored(last), "snapshot \(i)")
        }
    }

    @Test func compactionKeepsADeltaJournalBoundedAndLosesNothing() throws {
        let dir = try TempDirectory()
        let hb = UUID(), hr = UUID()
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db, compactionBytes: 4000)
            var largest = 0
            for count in 1...1000 {
                try writer.write([Self.beats(hb, count), Self.heartRate(hr, count)])
                largest = max(largest, try Self.journalSize(db))
            }
            #expect(writer.compactions > 5)
            // At most the limit, then one write: the full records of both series (about 2 KB each at the end)
            // that start the journal again after a compaction, or deltas of a few dozen bytes.
            #expect(largest < 4000 + 5000, "the journal reached \(largest) bytes")
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(Set(try db.recoverCheckpoints().map(\.uuid)) == [hb, hr])
        #expect(try Self.recovered(db, hb) == Self.stored(Self.beats(hb, 1000)))
        #expect(try Self.recovered(db, hr) == Self.stored(Self.heartRate(hr, 1000)))
    }

    @Test func aJournalOfTheFormerVersionIsStillRecovered() throws {
        // An older heartd killed with series open leaves a version-1 journal (whole snapshots, no record type).
        let dir = try TempDirectory()
        let uuid = UUID()
        let record = try CheckpointRecord(sample: Self.beats(uuid, 25), updatedAt: Fixtures.start)
        var bytes = OpenSeriesJournal.headers[0]
        var payload = ByteWriter(capacity: 256)
        JournalRecordCoding.fullPayload(record, into: &payload)
        JournalRecordCoding.frame(payload.bytes, into: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: dir.databasePath + "-open"))
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(try db.openSeriesSnapshots().map(\.uuid) == [uuid], "a reader sees it too")
        #expect(try db.recoverCheckpoints().map(\.uuid) == [uuid])
        #expect(try Self.recovered(db, uuid) == Self.stored(Self.beats(uuid, 25)))
        let journal = try Data(contentsOf: URL(fileURLWithPath: try #require(db.journalPath)))
        #expect(journal == Data(OpenSeriesJournal.fileHeader), "emptied, in the current version")
    }
}
