import HeartdConfig
import HeartdKit
import Ingest
import Testing

/// The configuration as the daemon's control server and logging take it (`ConfigurationBridges.swift`).
@Suite struct ConfigurationBridgeTests {
    @Test func mapsControlAndLogSettings() throws {
        let configuration = try HeartdConfiguration.parse("""
            [control]
            group = ""
            admin_group = "wheel"
            max_clients = 8
            [log]
            level = "debug"
            target = "stderr"
            """)
        let control = configuration.controlServerConfiguration(environment: ["RUNTIME_DIRECTORY": "/run/hd"])
        #expect(control.path == "/run/hd/control.sock" && control.group == nil && control.adminGroup == "wheel")
        #expect(control.maxClients == 8 && control.maxLineBytes == 65536 && control.mode == 0o660)
        let logging = configuration.loggingBootstrap(environment: ["INVOCATION_ID": "x"])
        #expect(logging.resolvedTarget == .stderr && logging.level == .debug)
        #expect(HeartdConfiguration().controlServerConfiguration(environment: [:]).group == "heartd")
    }

    @Test func seriesLimitsReachTheIngestSettings() throws {
        let settings = try HeartdConfiguration.parse("[series]\nmax_beats = 900\nmax_values = 250\n").ingestSettings
        #expect(settings.maxBeats == 900 && settings.maxValues == 250)
        #expect(HeartdConfiguration().ingestSettings.maxValues == 1000)
    }
}
