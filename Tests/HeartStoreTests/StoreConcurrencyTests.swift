import Foundation
import HealthModel
import Testing
@testable import HeartStore

@Suite struct StoreConcurrencyTests {
    @Test func concurrentWritersAndReadersShareOneDatabase() async throws {
        let dir = try TempDirectory()
        let db = try HeartDatabase(path: dir.databasePath)
        let writers = 4, perWriter = 10
        let saved = try await withThrowingTaskGroup(of: [UUID].self) { group in
            for w in 0..<writers {
                group.addTask {
                    var uuids: [UUID] = []
                    for i in 0..<perWriter {
                        let sample = Fixtures.heartbeatSample(
                            start: Fixtures.start.addingTimeInterval(Double(w * 10_000 + i * 900)), count: 50,
                            seed: UInt64(w * 100 + i))
                        uuids += try db.save([sample]).saved
                        try db.writeCheckpoints([Fixtures.heartRateSample(count: 5, seed: UInt64(i))])
                    }
                    return uuids
                }
                group.addTask {
                    // Readers always see a consistent snapshot: every summarized sample can be read in full.
                    for _ in 0..<perWriter {
                        for summary in try db.samples() {
                            #expect(try db.beats(uuid: summary.uuid)?.count == 50)
                        }
                    }
                    return []
                }
            }
            return try await group.reduce(into: [UUID]()) { $0 += $1 }
        }
        #expect(saved.count == writers * perWriter)
        let changes = try db.changes(since: 0, limit: 1000)
        #expect(Set(changes.added.map(\.uuid)) == Set(saved))
        #expect(Set(changes.added.map(\.anchor)).count == saved.count)
        #expect(changes.anchor == Int64(saved.count))
    }
}
