import Foundation
import TestBus
import Logging
@testable import Sync

/// A temporary directory with a gateway store and the `[sync]` settings pointing at a central database.
struct SyncFixture {
    let dir: String
    let store: GatewayStore
    var settings = SyncSettings()

    init(url: String, gateway: String = "gw-" + UUID().uuidString.prefix(6).lowercased()) throws {
        dir = "/tmp/hd-sync-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        store = try GatewayStore(path: dir + "/heart.sqlite")
        settings.url = url
        settings.tls = .disable
        settings.passwordFile = dir + "/password"
        settings.gateway = gateway
        settings.intervalSeconds = 0.2
        settings.batchSize = 7
        settings.timeoutSeconds = 5
        settings.retryMaxSeconds = 1
        settings.stateFile = dir + "/state.json"
        try (PostgresServer.password + "\n").write(toFile: settings.passwordFile, atomically: true, encoding: .utf8)
    }

    var gateway: String { settings.gateway }

    func connector() throws -> CentralConnector {
        try CentralConnector(settings: settings, environment: [:])
    }

    func runner(settings override: SyncSettings? = nil) throws -> SyncRunner {
        let s = override ?? settings
        var logger = Logger(label: "sync-test")
        logger.logLevel = ProcessInfo.processInfo.environment["HEARTD_SYNC_TEST_LOG"] != nil ? .trace : .critical
        return SyncRunner(settings: s, storePath: store.path, identity: GatewayIdentity(name: s.gateway, version: "test"),
                          connector: try CentralConnector(settings: s, environment: [:]), logger: logger)
    }

    func state() -> SyncState? { try? SyncState.read(from: settings.stateFile) }

    func remove() { try? FileManager.default.removeItem(atPath: dir) }
}

/// Waits for a child to exit by polling (Foundation's `waitUntilExit` was seen to hang under the test runner
/// for children that leave others behind); true when it exited in time.
@discardableResult
func waitForExit(_ process: Process, seconds: Double = 30) async -> Bool {
    await eventually(timeout: seconds) { !process.isRunning }
}
