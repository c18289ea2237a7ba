import Foundation
import GRDB
import Posix
import Synchronization

/// The heartd database: devices, finished samples with compact series, tombstones and open-series
/// checkpoints, in one SQLite file in WAL mode.
///
/// Thread safety: `HeartDatabase` is `Sendable` and may be shared by any number of tasks and threads.
/// It wraps a GRDB `DatabasePool`: reads run concurrently on a pool of reader connections and always see a
/// consistent snapshot; writes are serialized on the single writer connection. Every method is synchronous
/// and blocking (each call is one short transaction); call it from a task that may block briefly,
/// not from a latency-sensitive executor in a tight loop.
///
/// Durability: `synchronous = NORMAL` in WAL mode — a committed transaction survives a process crash;
/// a power loss may roll back the last transactions but never corrupts the file.
///
/// A database made by `opening(path:)` may not be open yet (a full disk, a read-only file system): every read and
/// write then throws why, until `open()` succeeds — the daemon comes up and captures into memory meanwhile.
public final class HeartDatabase: Sendable {
    /// The database file, or nil for an in-memory database.
    public let path: String?
    /// True when opened with `openReadOnly(path:)`: every write throws `StoreError(.readOnly)`.
    public let isReadOnly: Bool
    private let connection: Mutex<Connection>

    /// The SQLite connection, or why there is none yet.
    private enum Connection {
        case open(any DatabaseWriter)
        case unopened(StoreError)
    }

    /// Opens or creates the database at `path` (creating its directory), in WAL mode, and migrates it.
    public convenience init(path: String) throws(StoreError) {
        self.init(path: path, writer: try Self.openPool(path: path), readOnly: false)
    }

    /// The database at `path`, opened as `init(path:)` does if it can be; otherwise not open yet, remembering why
    /// (`openError`), for `open()` to try again.
    public static func opening(path: String) -> HeartDatabase {
        do {
            return HeartDatabase(path: path, writer: try openPool(path: path), readOnly: false)
        } catch {
            return HeartDatabase(path: path, connection: .unopened(error))
        }
    }

    /// Why the database is not open, or nil when it is.
    public var openError: StoreError? {
        connection.withLock { if case .unopened(let error) = $0 { error } else { nil } }
    }

    /// Opens a database that `opening(path:)` could not open; nothing when it is open. Throws why it still cannot.
    public func open() throws(StoreError) {
        guard let path, openError != nil else { return }
        let pool: DatabasePool
        do {
            pool = try Self.openPool(path: path)
        } catch {
            connection.withLock { $0 = .unopened(error) }
            throw error
        }
        connection.withLock { $0 = .open(pool) }
    }

    /// The connection, or the error that kept it from opening.
    var writer: any DatabaseWriter {
        get throws(StoreError) {
            switch connection.withLock({ $0 }) {
            case .open(let writer): return writer
            case .unopened(let error): throw StoreError(error.code, "the store is not open: \(error.detail)")
            }
        }
    }

    private static func openPool(path: String) throws(StoreError) -> DatabasePool {
        do {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
        } catch {
            throw StoreError(.io, "cannot create the directory of \(path): \(error)")
        }
        var config = Self.configuration(readOnly: false)
        config.prepareDatabase { db in
            // 1 KB pages: a 1000-beat series row (~2 KB) spills into overflow pages that SQLite fills whole,
            // and every table and index (about 20) starts with one page. A real day measured 560 kB at 1 KB,
            // 721 kB at 8 KB (every B-tree's first page, slack after the 2 KB rows), 926 kB at 4 KB (one row a
            // page) — docs/BENCHMARKS.md. Takes effect only when the file is created: older stores keep theirs.
            try db.execute(sql: "PRAGMA page_size = 1024")
            // Checkpoint the WAL at 8 MiB as with 8 KiB pages (SQLite's default is 1000 pages, 1 MiB at 1 KiB):
            // every checkpoint costs two fsyncs. Bounds the WAL the same way whatever the page size.
            let pageSize = try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 1024
            try db.execute(sql: "PRAGMA wal_autocheckpoint = \(8 * 1024 * 1024 / max(pageSize, 512))")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // SQLite's default page cache is 2000 KiB per connection, filled as pages are touched: a daemon that
            // appends series for an hour grows by it (the kernel's page cache holds the file anyway).
            try db.execute(sql: "PRAGMA cache_size = -\(Self.pageCacheKiB)")
        }
        // SQLite maps the WAL index (`-shm`) shared; on a full btrfs a rewrite of one of its pages was a SIGBUS that
        // killed the daemon (DaemonDiskFullTests). Created here first, marked not copy-on-write, it is rewritten in
        // place. An index another process created stays as it is (systemd/heartd.tmpfiles marks the directory).
        CopyOnWrite.prepareMappedFile(at: path + "-shm", mode: Self.fileMode(path))
        do {
            let pool = try DatabasePool(path: path, configuration: config)
            try Schema.migrator.migrate(pool)
            return pool
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// Opens an existing database without write access (for `heartctl` and other readers).
    /// Every write method throws `StoreError` with code `.readOnly`.
    public static func openReadOnly(path: String) throws(StoreError) -> HeartDatabase {
        guard FileManager.default.fileExists(atPath: path) else {
            throw StoreError(.notFound, "no database at \(path)")
        }
        var config = Self.configuration(readOnly: true)
        config.prepareDatabase { db in try Schema.shadowMissingColumns(db) }
        do {
            let reader: any DatabaseWriter
            do {
                reader = try DatabasePool(path: path, configuration: config)
            } catch let error as DatabaseError where error.resultCode.primaryResultCode == .SQLITE_CANTOPEN {
                // A WAL database whose -shm file is missing and cannot be created: a plain connection works.
                reader = try DatabaseQueue(path: path, configuration: config)
            }
            let migrated = try reader.read { db in try Schema.isReadable(db) }
            guard migrated else {
                throw StoreError(.corruptDatabase, "\(path) is not a heartd database of a known version")
            }
            return HeartDatabase(path: path, writer: reader, readOnly: true)
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// A private in-memory database (tests, simulations). Not WAL; otherwise identical.
    public static func inMemory() throws(StoreError) -> HeartDatabase {
        do {
            let queue = try DatabaseQueue(configuration: configuration(readOnly: false))
            try Schema.migrator.migrate(queue)
            return HeartDatabase(path: nil, writer: queue, readOnly: false)
        } catch {
            throw StoreError.wrap(error)
        }
    }

    init(path: String?, writer: any DatabaseWriter, readOnly: Bool) {
        self.path = path
        connection = Mutex(.open(writer))
        self.isReadOnly = readOnly
    }

    private init(path: String, connection: Connection) {
        self.path = path
        self.connection = Mutex(connection)
        isReadOnly = false
    }

    /// The database file's permission bits (SQLite gives its `-wal` and `-shm` the same), 0644 for a new one.
    private static func fileMode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0o644
    }

    /// SQLite's page cache per connection (KiB): enough for the B-tree interior pages of the daemon's writes and
    /// queries, small enough that a resident process stays flat (docs/BENCHMARKS.md, "Memory").
    static let pageCacheKiB = 256
    /// Reader connections of the pool: the daemon's control socket rarely has more than one query at once.
    static let maximumReaders = 2

    private static func configuration(readOnly: Bool) -> Configuration {
        var config = Configuration()
        config.maximumReaderCount = maximumReaders
        config.readonly = readOnly
        config.foreignKeysEnabled = true
        config.label = "heartd.store"
        config.busyMode = .timeout(5)
        return config
    }

    /// Runs `body` in a read transaction on a consistent snapshot. For queries the façade does not offer.
    public func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        let writer = try self.writer
        do {
            return try writer.read(body)
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// Runs `body` in one write transaction (rolled back if it throws).
    public func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        guard !isReadOnly else {
            throw StoreError(.readOnly, "the database \(path ?? ":memory:") is open read-only")
        }
        let writer = try self.writer
        do {
            return try writer.write(body)
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// Bytes on disk: the database file plus its write-ahead log and open-series journal (0 in memory).
    public func fileSize() -> Int64 {
        guard let path else { return 0 }
        return [path, path + "-wal", path + "-open"].reduce(0) { total, file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? NSNumber
            return total + (size?.int64Value ?? 0)
        }
    }

    /// SQLite's `PRAGMA integrity_check`: "ok" for a healthy file, otherwise the problems, one a line.
    public func integrityCheck() throws(StoreError) -> String {
        try read { db in
            try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "\n")
        }
    }

    /// Copies the WAL into the database file (TRUNCATE checkpoint), e.g. before measuring or backing up.
    public func checkpointWAL() throws(StoreError) {
        guard !isReadOnly else { return }
        let writer = try self.writer
        do {
            try writer.writeWithoutTransaction { db in
                _ = try db.checkpoint(.truncate)
            }
        } catch {
            throw StoreError.wrap(error)
        }
    }

    /// Closes every connection. Further calls throw.
    public func close() throws(StoreError) {
        guard case .open(let writer) = connection.withLock({ $0 }) else { return }
        do {
            if let pool = writer as? DatabasePool {
                try pool.close()
            } else if let queue = writer as? DatabaseQueue {
                try queue.close()
            }
        } catch {
            throw StoreError.wrap(error)
        }
    }
}
