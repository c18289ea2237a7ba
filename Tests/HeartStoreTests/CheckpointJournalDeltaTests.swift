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

    /// The checkpoint the pipeline hands over when the series went from `count - 1` items to `count`: the whole
    /// series the first time, then the new beat, or the held heart-rate value (now with its real end) and the new one.
    static func change(_ series: (UUID, Int) -> Sample, _ uuid: UUID, _ count: Int) -> SeriesCheckpoint {
        let now = series(uuid, count)
        guard count > 1 else { return .full(now) }
        let keep = now.typeIdentifier == Sample.heartbeatSeriesIdentifier ? count - 1 : count - 2
        let items: SeriesItems = switch now {
        case .heartbeatSeries(let s): .beats(Array(s.beats[keep...]))
        case .quantity(let q): .points(Array(q.points[keep...]))
        }
        return .appended(SeriesAppend(uuid: uuid, after: count - 1, keeping: keep, items: items, end: now.end))
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
                try writer.write([Self.change(Self.beats, hb, count), Self.change(Self.heartRate, hr, count)])
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
            for count in 1...50 { try writer.write([Self.change(Self.heartRate, uuid, count)]) }
        }
        let path = dir.databasePath + "-open"
        let full = try journalRecords(path)
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
        // The pipeline sends a series whole after anything but an append (new metadata, a failed write); whole
        // snapshots that changed earlier items, shrank or renamed must each be recovered exactly.
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
                // After a compaction a change takes its base from `open_series` and starts the journal again whole.
                try writer.write([Self.change(Self.beats, hb, count), Self.change(Self.heartRate, hr, count)])
                largest = max(largest, try Self.journalSize(db))
            }
            #expect(writer.compactions > 5)
            // At most the limit plus one write: deltas of a few dozen bytes, then compacted; the full records of
            // both series (about 2 KB each at the end) start the journal again.
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
