import Dispatch
import Foundation
import GRDB
import HeartStore
import Testing

/// Capture never waits for sync: the sync process reads the store read-only, and in WAL mode a reader never
/// blocks the writer.
@Suite struct SyncStoreTests {
    @Test func captureSavesWhileASyncReadIsOpen() throws {
        let dir = "/tmp/hd-syncstore-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try GatewayStore(path: dir + "/heart.sqlite")
        try store.fill(series: 2)
        let reader = try HeartDatabase.openReadOnly(path: store.path)
        let reading = DispatchSemaphore(value: 0), saved = DispatchSemaphore(value: 0)
        let writer = Thread {
            reading.wait()
            try? store.fill(series: 1, start: Date(timeIntervalSince1970: 1_790_900_000))
            saved.signal()
        }
        writer.start()
        // Inside one read transaction (a sync page being read), the capture side's save must complete.
        let (outcome, seen) = try reader.read { db -> (DispatchTimeoutResult, Int) in
            let before = try Int.fetchOne(db, sql: "SELECT count(*) FROM samples") ?? 0
            reading.signal()
            return (saved.wait(timeout: .now() + 30), before)
        }
        #expect(outcome == .success, "the save finished while the read transaction was open")
        #expect(seen == 4)
        #expect(try reader.replicaChanges(since: 0, limit: 100).added.count == 6, "the next read sees it")
    }
}
