import Foundation
import Logging
import Systemd
import Testing
@testable import HeartdConfig

@Suite struct ConfigurationTests {
    func error(_ text: String, overrides: [String: String] = [:]) -> ConfigurationError? {
        do {
            _ = try HeartdConfiguration.parse(text, source: "test.toml", overrides: overrides)
            return nil
        } catch {
            return error
        }
    }

    @Test func emptyFileGivesDefaults() throws {
        let configuration = try HeartdConfiguration.parse("")
        #expect(configuration == HeartdConfiguration())
        #expect(configuration.bluetooth.adapters.isEmpty && configuration.bluetooth.allow.isEmpty)
        #expect(configuration.bluetooth.autoHeartRate == false)
        #expect(configuration.bluetooth.subscribe == .acquireNotify)
        #expect(configuration.bluetooth.silentStopSeconds == 10 && configuration.bluetooth.reconnectMaxSeconds == 60)
        #expect(configuration.store.path == "/var/lib/heartd/heartd.sqlite")
        #expect(configuration.store.checkpointSeconds == 1 && configuration.store.memoryBufferBeats == 500_000)
        #expect(configuration.series.maxBeats == 1000 && configuration.series.maxDurationSeconds == 3600)
        #expect(configuration.series.idleTimeoutSeconds == 30 && configuration.series.gapThresholdSeconds == 3)
        #expect(configuration.series.clockToleranceSeconds == 2 && configuration.series.rrMinMs == 250 && configuration.series.rrMaxMs == 2500)
        #expect(configuration.control.group == "heartd" && configuration.control.adminGroup == "")
        #expect(configuration.control.maxClients == 64 && configuration.control.maxLineBytes == 65536)
        #expect(configuration.log.level == .info && configuration.log.target == .auto)
        #expect(configuration.controlSocketPath(environment: [:]) == "/run/heartd/control.sock")
        #expect(configuration.controlSocketPath(environment: ["RUNTIME_DIRECTORY": "/run/x:/run/y"]) == "/run/x/control.sock")
    }

    @Test func parsesEveryValueKind() throws {
        let text = """
            # heartd test
            [bluetooth]
            adapters = ["hci0", "hci1"]   # two adapters
            allow = [
              "aa:bb:cc:dd:ee:ff",
              'AA:BB:CC:DD:EE:01',  # trailing comma allowed
            ]
            auto_heart_rate = true
            subscribe = "start-notify"
            silent_stop_seconds = 12.5

            [store]
            path = "/data/heart\\u0073.sqlite"
            memory_buffer_beats = 1_000

            [series]
            max_beats = 500
            rr_min_ms = 300

            [log]
            level = "debug"
            target = "journal"
            """
        let configuration = try HeartdConfiguration.parse(text)
        #expect(configuration.bluetooth.adapters == ["hci0", "hci1"])
        #expect(configuration.bluetooth.allow == ["AA:BB:CC:DD:EE:FF", "AA:BB:CC:DD:EE:01"])
        #expect(configuration.bluetooth.autoHeartRate)
        #expect(configuration.bluetooth.subscribe == .startNotify)
        #expect(configuration.bluetooth.silentStopSeconds == 12.5)
        #expect(configuration.store.path == "/data/hearts.sqlite")
        #expect(configuration.store.memoryBufferBeats == 1000)
        #expect(configuration.series.maxBeats == 500 && configuration.series.rrMinMs == 300)
        #expect(configuration.log.level == .debug && configuration.log.target == .journal)
    }

    @Test func unknownSectionAndKeyNameTheLine() throws {
        let section = try #require(error("[store]\npath = \"/x\"\n\n[bleutooth]\n"))
        #expect(section.code == .unknownSection && section.key == "bleutooth" && section.line == 4)
        let key = try #require(error("[series]\nmax_beats = 10\nmax_beat = 10\n"))
        #expect(key.code == .unknownKey && key.key == "series.max_beat" && key.line == 3)
        #expect(key.description.hasPrefix("test.toml:3: series.max_beat: unknown key"))
        let rootKey = try #require(error("path = \"/x\"\n"))
        #expect(rootKey.code == .unknownKey && rootKey.line == 1)
    }

    @Test func wrongTypesNameKeyAndLine() throws {
        let cases: [(String, String, Int)] = [
            ("[series]\n\nmax_beats = \"1000\"", "series.max_beats", 3),
            ("[bluetooth]\nauto_heart_rate = 1", "bluetooth.auto_heart_rate", 2),
            ("[bluetooth]\nadapters = \"hci0\"", "bluetooth.adapters", 2),
            ("[bluetooth]\nadapters = [0]", "bluetooth.adapters", 2),
            ("[store]\ncheckpoint_seconds = \"fast\"", "store.checkpoint_seconds", 2),
            ("[series]\nmax_beats = 10.5", "series.max_beats", 2),
            ("[log]\nlevel = 3", "log.level", 2),
        ]
        for (text, key, line) in cases {
            let failure = try #require(error(text), "\(key)")
            #expect(failure.code == .wrongType && failure.key == key && failure.line == line, "\(failure)")
        }
    }

    @Test func pinsAndAdapterLimits() throws {
        let configuration = try HeartdConfiguration.parse("""
            [bluetooth]
            pin = ["a0:9e:1a:12:34:56@hci1", "A0:9E:1A:12:34:57@hci0"]
            adapter_connection_limit = 7
            connection_limit_backoff_seconds = 10
            """)
        #expect(configuration.bluetooth.pins == ["A0:9E:1A:12:34:56": "hci1", "A0:9E:1A:12:34:57": "hci0"])
        #expect(configuration.bluetooth.adapterConnectionLimit == 7)
        #expect(configuration.bluetooth.connectionLimitBackoffSeconds == 10)
        #expect(HeartdConfiguration().bluetooth.adapterConnectionLimit == 5)
        #expect(try HeartdConfiguration.parse(configuration.render()) == configuration)
    }

    @Test func outOfRangeValuesNameKeyAndLine() throws {
        let cases: [(String, String, Int)] = [
            ("[series]\nmax_beats = 0", "series.max_beats", 2),
            ("[bluetooth]\nsubscribe = \"poll\"", "bluetooth.subscribe", 2),
            ("[bluetooth]\nallow = [\"AA:BB\"]", "bluetooth.allow", 2),
            ("[bluetooth]\nadapters = [\"usb0\"]", "bluetooth.adapters", 2),
            ("[bluetooth]\npin = [\"A0:9E:1A:12:34:56\"]", "bluetooth.pin", 2),
            ("[bluetooth]\npin = [\"A0:9E:1A:12:34:56@usb1\"]", "bluetooth.pin", 2),
            ("[bluetooth]\nadapter_connection_limit = 0", "bluetooth.adapter_connection_limit", 2),
            ("[store]\npath = \"relative.sqlite\"", "store.path", 2),
            ("[control]\nmax_line_bytes = 10", "control.max_line_bytes", 2),
            ("[control]\ngroup = \"bad group\"", "control.group", 2),
            ("[log]\ntarget = \"syslog\"", "log.target", 2),
            ("[series]\nrr_min_ms = 3000\nrr_max_ms = 2000", "series.rr_min_ms", 2),
        ]
        for (text, key, line) in cases {
            let failure = try #require(error(text), "\(key)")
            #expect(failure.code == .outOfRange && failure.key == key && failure.line == line, "\(failure)")
        }
    }

    @Test func syntaxErrorsReportTheLine() throws {
        let cases: [(String, Int)] = [
            ("[store]\npath = /var/x", 2),             // unquoted string
            ("[store]\npath = \"unterminated", 2),
            ("[store]\npath = \"bad \\q escape\"", 2),
            ("[store\n", 1),
            ("[series]\nmax_beats 10", 2),
            ("[series]\nmax_beats = 10 extra", 2),
            ("[bluetooth]\nadapters = [\"hci0\"\n", 2),
            ("[a.b]\n", 1),
            ("[series]\nmax_beats = { x = 1 }", 2),
        ]
        for (text, line) in cases {
            let failure = try #require(error(text), "\(text)")
            #expect(failure.code == .syntax && failure.line == line, "\(failure)")
        }
        let duplicate = try #require(error("[series]\nmax_beats = 1\nmax_beats = 2\n"))
        #expect(duplicate.code == .duplicate && duplicate.line == 3)
        let twice = try #require(error("[series]\n[series]\n"))
        #expect(twice.code == .duplicate && twice.line == 2)
    }

    @Test func overridesAreAppliedAfterTheFileAndValidated() throws {
        let configuration = try HeartdConfiguration.parse("[series]\nmax_beats = 500\n", overrides: [
            "series.max_beats": "2000",
            "store.path": "/tmp/heartd.sqlite",
            "bluetooth.adapters": "hci0, hci2",
            "bluetooth.auto_heart_rate": "true",
            "log.level": "debug",
        ])
        #expect(configuration.series.maxBeats == 2000)
        #expect(configuration.store.path == "/tmp/heartd.sqlite")
        #expect(configuration.bluetooth.adapters == ["hci0", "hci2"])
        #expect(configuration.bluetooth.autoHeartRate)
        #expect(configuration.log.level == .debug)

        let range = try #require(error("", overrides: ["series.max_beats": "-1"]))
        #expect(range.code == .outOfRange && range.source == "override" && range.line == nil)
        let type = try #require(error("", overrides: ["bluetooth.auto_heart_rate": "yes"]))
        #expect(type.code == .wrongType)
        #expect(error("", overrides: ["nosuch.key": "1"])?.code == .unknownKey)
        #expect(error("", overrides: ["max_beats": "1"])?.code == .invalidOverride)
    }

    @Test func renderRoundTrips() throws {
        var configuration = HeartdConfiguration()
        configuration.bluetooth.allow = ["AA:BB:CC:DD:EE:FF"]
        configuration.store.path = "/var/lib/heartd/odd \"name\".sqlite"
        configuration.series.gapThresholdSeconds = 2.5
        configuration.log.target = .stderr
        let text = configuration.render()
        #expect(text.contains("[series]\nmax_beats = 1000\n"))
        #expect(text.contains("gap_threshold_seconds = 2.5\n"))
        #expect(text.contains("socket = \"$RUNTIME_DIRECTORY/control.sock\"\n"))
        #expect(try HeartdConfiguration.parse(text) == configuration)
        #expect(try HeartdConfiguration.parse(HeartdConfiguration().render()) == HeartdConfiguration())
    }
}

@Suite struct ConfigurationLoadingTests {
    @Test func loadsFileOrReportsItMissing() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("heartd-\(UUID().uuidString).toml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: ConfigurationError(.unreadable, source: path, "configuration file does not exist")) {
            _ = try HeartdConfiguration.load(path: path)
        }
        #expect(try HeartdConfiguration.load(path: path, missingIsDefault: true) == HeartdConfiguration())
        try "[series]\nmax_beats = 7\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try HeartdConfiguration.load(path: path).series.maxBeats == 7)
        try "[series]\nmax_beats = x\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { _ = try HeartdConfiguration.load(path: path) }
    }

    @Test func exampleFileParses() throws {
        // The shipped example must stay valid and equal to the defaults.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let example = root.appendingPathComponent("systemd/heartd.toml.example").path
        #expect(try HeartdConfiguration.load(path: example) == HeartdConfiguration())
    }
}
