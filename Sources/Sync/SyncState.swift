import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SyncConfig

/// What `heartd-sync` last knew, kept in `sync.state_file` for `heartctl status` (the sync process and the
/// capture daemon are separate processes with separate sandboxes; a small file is the simplest channel).
/// Only bookkeeping: the truth of what was delivered is the gateway's anchor in PostgreSQL, so losing or
/// corrupting this file loses nothing.
public struct SyncState: Codable, Sendable, Hashable {
    public struct LastError: Codable, Sendable, Hashable {
        public var code: SyncError.Code
        public var detail: String
        public var at: Date
    }

    public var gateway: String
    public var central: String
    public var pid: Int32
    public var updatedAt: Date
    /// The store's anchor delivered to the central database.
    public var deliveredAnchor: Int64
    public var storeAnchor: Int64
    /// When the oldest change not yet delivered happened (a sample's end, a deletion); nil when caught up.
    public var oldestUndelivered: Date?
    public var lastDelivery: Date?
    public var lastError: LastError?
    /// Totals since this process started.
    public var samplesDelivered = 0
    public var beatsDelivered = 0

    public init(gateway: String, central: String) {
        self.gateway = gateway
        self.central = central
        pid = getpid()
        updatedAt = Date()
        deliveredAnchor = 0
        storeAnchor = 0
    }

    /// Seconds between the oldest undelivered change and `now`; 0 when caught up.
    public func lag(now: Date = Date()) -> Double {
        oldestUndelivered.map { max(0, now.timeIntervalSince($0)) } ?? 0
    }

    /// Writes the state atomically (a temporary file renamed over the old one).
    public func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    public static func read(from path: String) throws -> SyncState {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(SyncState.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// One sync process per store: an exclusive `flock` on `<state_file>.lock`, held for the life of the process
/// (the kernel releases it when the process dies, however it dies).
public final class SyncLock: Sendable {
    private let fd: Int32
    public let path: String

    public init(path: String) throws(SyncError) {
        self.path = path
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty { try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SyncError(.store, "cannot open the lock file \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            close(fd)
            throw SyncError(.alreadyRunning, "another heartd-sync holds \(path)")
        }
        self.fd = fd
    }

    deinit { close(fd) }
}
