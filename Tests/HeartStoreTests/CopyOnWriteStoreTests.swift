import Foundation
import HeartStore
import Testing
import TestFileSystems

/// On btrfs the store's WAL index (`-shm`, which SQLite maps shared) is made not copy-on-write before SQLite opens
/// it: a page of it rewritten on a full disk is then written in place instead of killing heartd with SIGBUS
/// (DaemonDiskFullTests fills the disk around a running daemon; this checks the mark itself).
@Suite(.enabled(if: ScratchFileSystem.isAvailable(.btrfs), "needs root and a btrfs loop mount"))
struct CopyOnWriteStoreTests {
    @Test func theWALIndexIsNotCopyOnWriteOnBtrfs() throws {
        let mount = "/tmp/hd-cow-\(UUID().uuidString.prefix(8))"
        let fs = try ScratchFileSystem(.btrfs, at: mount)
        defer {
            fs.unmount()
            try? FileManager.default.removeItem(atPath: mount)
        }
        let path = mount + "/heart.db"
        let db = try HeartDatabase(path: path)
        #expect(try db.integrityCheck() == "ok")
        let attributes = try ScratchFileSystem.attributes(of: path + "-shm")
        #expect(attributes.contains("C"), "lsattr of the -shm: \(attributes)")
        try db.close()
    }
}
