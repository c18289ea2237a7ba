import Foundation
import HeartStore
import Logging
import NIOCore
import PostgresNIO
import SyncConfig

/// One gateway's session with the central database: the schema checked, the gateway registered and locked
/// (a session advisory lock per gateway: a second sync process for it is refused), then batches delivered,
/// each in one transaction that also moves the gateway's delivered anchor — so a crash anywhere neither
/// loses nor duplicates a change.
public final class CentralWriter: Sendable {
    /// First key of the per-gateway advisory lock (the second is the gateway id).
    static let gatewayLockKey: Int32 = 0x6872_7464

    public let connection: PostgresConnection
    public let gatewayId: Int32
    let timeoutSeconds: Double
    let logger: Logger

    /// Connects, migrates the schema, registers `gateway` and takes its lock.
    public static func open(connector: CentralConnector, gateway: GatewayIdentity, logger: Logger) async throws(SyncError) -> CentralWriter {
        let connection = try await connector.connect(logger: logger)
        do {
            let id: Int32 = try await Deadline.run(seconds: connector.timeoutSeconds, what: "registering the gateway",
                                                   onTimeout: { connection.close().whenComplete { _ in } }) {
                try await CentralSchema.migrate(connection, logger: logger)
                try await CentralPartitions.ensureAhead(connection, logger: logger)
                let rows = try await connection.query("""
                    INSERT INTO gateways (name, machine_id, heartd_version) VALUES (\(gateway.name), \(gateway.machineId), \(gateway.version))
                    ON CONFLICT (name) DO UPDATE SET machine_id = EXCLUDED.machine_id,
                        heartd_version = EXCLUDED.heartd_version, last_seen = now()
                    RETURNING id
                    """, logger: logger)
                var id: Int32 = 0
                for try await found in rows.decode(Int32.self) { id = found }
                var locked = false
                for try await flag in try await connection.query(
                    "SELECT pg_try_advisory_lock(\(gatewayLockKey), \(id))", logger: logger).decode(Bool.self) { locked = flag }
                guard locked else {
                    throw SyncError(.alreadyRunning, "another sync process is delivering gateway '\(gateway.name)'")
                }
                return id
            }
            return CentralWriter(connection: connection, gatewayId: id, timeoutSeconds: connector.timeoutSeconds, logger: logger)
        } catch {
            connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
            throw CentralConnector.map(error, context: "opening the central database")
        }
    }

    init(connection: PostgresConnection, gatewayId: Int32, timeoutSeconds: Double, logger: Logger) {
        self.connection = connection
        self.gatewayId = gatewayId
        self.timeoutSeconds = timeoutSeconds
        self.logger = logger
    }

    /// The anchor up to which this gateway's changes are in the central database.
    public func deliveredAnchor() async throws(SyncError) -> Int64 {
        try await bounded("reading the delivered anchor") { connection, logger, gateway in
            var anchor: Int64 = 0
            for try await found in try await connection.query(
                "SELECT delivered_anchor FROM gateways WHERE id = \(gateway)", logger: logger).decode(Int64.self) { anchor = found }
            return anchor
        }
    }

    /// Delivers one page of changes read after `anchor` and moves the delivered anchor to the page's, in one
    /// transaction. Returns what was applied.
    @discardableResult
    public func deliver(_ changes: ReplicaChanges, from anchor: Int64) async throws(SyncError) -> DeliveryReport {
        try await deliver(PreparedBatch(changes, from: anchor))
    }

    /// Delivers a prepared page (read after `batch.fromAnchor`) and moves the delivered anchor to `batch.toAnchor`,
    /// in one transaction; refused when PostgreSQL's anchor is not `batch.fromAnchor`.
    @discardableResult
    public func deliver(_ batch: PreparedBatch) async throws(SyncError) -> DeliveryReport {
        try await bounded("delivering \(batch.count) changes") { connection, logger, gateway in
            try await connection.withTransaction(logger: logger) { connection in
                try await CentralBatchWriter(connection: connection, gateway: gateway, logger: logger).write(batch)
            }
        }
    }

    /// Ends a healthy session: gives the gateway's lock back first, so a sync started right after this one (cron's
    /// next `--once`) is not refused while the server has yet to notice the closed socket; then closes.
    public func finish() async {
        _ = try? await bounded("releasing the gateway lock") { connection, logger, gateway in
            _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.gatewayLockKey), \(gateway))", logger: logger)
        }
        await close()
    }

    /// Closes the connection without waiting: awaiting the close of a connection the server or the network
    /// already dropped can take as long as the dead socket does.
    public func close() async {
        let connection = connection
        // The callback keeps the connection alive until it is closed (PostgresNIO asserts that at deinit).
        connection.close().whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// Runs `body` under the timeout; on timeout the connection is closed (a stalled network ends, not hangs).
    private func bounded<T: Sendable>(_ what: String,
                                      _ body: @escaping @Sendable (PostgresConnection, Logger, Int32) async throws -> T) async throws(SyncError) -> T {
        let connection = connection, logger = logger, gateway = gatewayId
        do {
            return try await Deadline.run(seconds: timeoutSeconds, what: what,
                                          onTimeout: { connection.close().whenComplete { _ in } }) {
                try await body(connection, logger, gateway)
            }
        } catch {
            throw CentralConnector.map(error, context: what)
        }
    }
}

/// Who is delivering: the gateway's name, `/etc/machine-id` and heartd's version.
public struct GatewayIdentity: Sendable, Hashable {
    public var name: String
    public var machineId: String
    public var version: String

    public init(name: String, machineId: String? = nil, version: String) {
        self.name = name
        self.machineId = machineId ?? Self.localMachineId()
        self.version = version
    }

    static func localMachineId() -> String {
        let text = (try? String(contentsOfFile: "/etc/machine-id", encoding: .utf8)) ?? ""
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// What one delivered batch did centrally.
public struct DeliveryReport: Sendable, Hashable {
    public var inserted = 0
    /// Samples already present (same UUID): nothing written twice.
    public var alreadyPresent = 0
    /// Samples turned away by the sync-version rule (a version as high or higher is stored).
    public var staleVersions = 0
    /// Central samples removed: deletions applied plus lower versions replaced.
    public var removed = 0
    public var beats = 0
    public var heartRatePoints = 0
    /// Sessions written (started, stopped or replaced by a higher sync version).
    public var sessions = 0
    /// People written (added, changed, assigned or released a strap).
    public var people = 0
    public var anchor: Int64 = 0
}
