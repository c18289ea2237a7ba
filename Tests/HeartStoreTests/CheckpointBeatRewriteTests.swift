import Foundation
import HealthModel
import Testing
@testable import HeartStore

/// A late decision (docs/INGEST.md, "Late decisions") rewrites an open heartbeat series' tail: the checkpoint keeps
/// fewer beats than the store holds (`keeping < after`) and hands over the stretch moved and flagged. The journal
/// must apply it and recovery give exactly the rewritten series.
@Suite struct CheckpointBeatRewriteTests {
    static func series(_ uuid: UUID, _ beats: [Beat]) -> Sample {
        .heartbeatSeries(HeartbeatSeriesSample(
            uuid: uuid, start: Fixtures.start, end: Fixtures.start.addingTimeInterval(beats.last?.offset ?? 0),
            beats: beats, device: Fixtures.strap, metadata: [:]))
    }

    @Test func aRewrittenBeatTailIsJournaledAndRecoveredAsRewritten() throws {
        let dir = try TempDirectory()
        let uuid = UUID()
        let placed = (0..<40).map { Beat(offset: Double($0) * 1.125, precededByGap: $0 == 0) }
        // From beat 30 on, the beats move 1.125 s later and beat 30 is flagged.
        var corrected = placed
        for k in 30..<40 { corrected[k] = Beat(offset: placed[k].offset + 1.125, precededByGap: k == 30) }
        corrected.append(Beat(offset: corrected[39].offset + 1.0, precededByGap: false))
        do {
            let db = try HeartDatabase(path: dir.databasePath)
            let writer = try CheckpointWriter(database: db)
            try writer.write([.full(Self.series(uuid, Array(placed.prefix(20))))])
            try writer.write([.appended(SeriesAppend(uuid: uuid, after: 20, keeping: 20, items: .beats(Array(placed[20...])),
                                                     end: Fixtures.start.addingTimeInterval(placed[39].offset)))])
            try writer.write([.appended(SeriesAppend(uuid: uuid, after: 40, keeping: 30, items: .beats(Array(corrected[30...])),
                                                     end: Fixtures.start.addingTimeInterval(corrected[40].offset)))])
            // The process dies here.
        }
        let db = try HeartDatabase(path: dir.databasePath)
        #expect(try db.recoverCheckpoints().map(\.uuid) == [uuid])
        guard case .heartbeatSeries(let recovered)? = try db.sample(uuid: uuid) else {
            Issue.record("the series was not recovered")
            return
        }
        #expect(.beats(recovered.beats) == (try CheckpointJournalDeltaTests.stored(Self.series(uuid, corrected))))
        #expect(recovered.beats.count == 41 && recovered.beats[30].precededByGap && !recovered.beats[31].precededByGap)
    }
}
