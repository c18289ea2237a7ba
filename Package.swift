// swift-tools-version:6.3
// heartd needs Swift 6.3 or later (Linux). The trait CustomGlobalExecutor (on by default) runs Swift concurrency on
// heartd's own threads through experimental SPI of Swift 6.3 (Sources/TaskThreads); `--disable-default-traits`
// builds without it, on the platform's executor.
import PackageDescription

let package = Package(
    name: "heartd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "heartd", targets: ["heartd"]),
        .executable(name: "heartctl", targets: ["heartctl"]),
        .executable(name: "heartd-sync", targets: ["heartd-sync"]),
        .executable(name: "heartd-mqtt", targets: ["heartd-mqtt"]),
        .executable(name: "heartbench", targets: ["heartbench"]),
        .executable(name: "heartd-web", targets: ["heartd-web"]),
    ],
    traits: [
        .trait(name: "CustomGlobalExecutor",
               description: "Swift concurrency's global executor on heartd's own threads (experimental SPI of Swift 6.3)"),
        .default(enabledTraits: ["CustomGlobalExecutor"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        // C shim: libdbus-1 macros and varargs made importable.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // C shim: Linux calls glibc hides behind _GNU_SOURCE or macros (recvmmsg, SO_TIMESTAMPNS, CMSG_*, timerfd).
        .target(name: "CLinux"),
        // Swift over the C shim and Glibc: errno text, AF_UNIX addresses, the monotonic and CPU clocks.
        .target(name: "Posix", dependencies: ["CLinux"]),
        // D-Bus binding: connection on one serial queue, messages, typed values, errors.
        .target(name: "DBus", dependencies: [
            "CDBus", "CLinux", "Posix",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The structured log fields (HEARTD_DEVICE, HEARTD_ADAPTER, HEARTD_SERIES, MESSAGE_ID): one name each.
        .target(name: "LogFields", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // Swift concurrency's global executor on threads of our own: no libdispatch worker pool and its monitor tick.
        .target(name: "TaskThreads", dependencies: ["Posix"]),
        // One timerfd thread for many deadlines: what wakes the daemon instead of periodic ticks.
        .target(name: "Timers", dependencies: ["CLinux", "Posix"]),
        // Generic BlueZ client: D-Bus names, errors, the ObjectManager mirror, Adapter/Device/Characteristic handles,
        // the AcquireNotify socket reader.
        .target(name: "BlueZ", dependencies: ["CLinux", "DBus", "Posix"]),
        // Pure decoders for GATT characteristics and the GATT UUIDs (no I/O).
        .target(name: "HeartRate"),
        // Pure health model: units, quantity types, samples, series builders, statistics, HRV.
        .target(name: "HealthModel"),
        // What every source emits (events, time stamps, disconnect reasons) and reports (capture status).
        .target(name: "SourceEvents", dependencies: ["HealthModel", "Posix"]),
        // Heart-rate capture policy on BlueZ: sessions per device, notification routing, faults, stats.
        .target(name: "Capture", dependencies: [
            "BlueZ", "DBus", "HealthModel", "HeartRate", "LogFields", "Posix", "SourceEvents", "Systemd", "Timers",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // SQLite store (GRDB): migrations, records, compact series encodings, queries, the open-series journal.
        .target(name: "HeartStore", dependencies: [
            "HealthModel", "Posix",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Ingest pipeline: source events → device sessions → builders → sink; replay and simulator sources.
        .target(name: "Ingest", dependencies: [
            "HealthModel", "HeartRate", "LogFields", "Posix", "SourceEvents",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // A simulated chest strap with injected faults, and a scorer of the stored beat timeline against the truth:
        // for the tests and heartbench only, never the daemon.
        .target(name: "StrapLab", dependencies: ["HealthModel", "HeartRate", "Ingest", "IngestTestSupport", "SeededRandom",
                                                 "SourceEvents"]),
        // A seeded random number generator (SplitMix64) for simulations, benchmarks and randomised tests.
        .target(name: "SeededRandom"),
        // Control protocol (JSON lines) and the Unix socket server/client.
        .target(name: "Control", dependencies: [
            "Posix",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // sd_notify and a journald LogHandler, without libsystemd.
        .target(name: "Systemd", dependencies: [
            "Posix",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The `[sync]` settings, the central URL and SyncError: what heartd.toml's validation needs of sync, without
        // NIO (HeartdConfig depends on this, not on Sync; Sync re-exports it).
        .target(name: "SyncConfig"),
        // The `[mqtt]` settings, without NIO (HeartdConfig validates them; heartd links no network code).
        .target(name: "MQTTConfig"),
        // Store → central PostgreSQL: anchored changes in batches, the delivered anchor in the same transaction.
        .target(name: "Sync", dependencies: [
            "HealthModel", "HeartStore", "SyncConfig", "Systemd", "Timers",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // The `[web]` settings and WebError: what heartd.toml's validation needs of the web service, without
        // Hummingbird or NIO (HeartdConfig depends on this, not on Web).
        .target(name: "WebConfig"),
        // The live dashboard on Hummingbird: routes, pages, the WebSocket/SSE fan-out, viewer and coach auth.
        .target(name: "Web", dependencies: [
            "Control", "HealthModel", "HeartQueries", "LiveFeed", "SourceEvents", "WebConfig",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // A small generic MQTT 3.1.1 client on SwiftNIO (packets, TLS, keep-alive, reconnect, a bounded queue); no heartd.
        .target(name: "MQTT", dependencies: [
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOTLS", package: "swift-nio"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // heartd.toml: every setting with its default, parsing, validation, rendering.
        .target(name: "HeartdConfig", dependencies: [
            "MQTTConfig", "SourceEvents", "SyncConfig", "Systemd", "WebConfig",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The options heartd and heartd-sync share (--config, --set and the other overrides), loading, logging.
        .target(name: "HeartdCommandLine", dependencies: [
            "HeartdConfig", "Systemd",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The read side shared by the daemon and heartctl: store queries, exports, the typed `status`.
        .target(name: "HeartQueries", dependencies: ["Control", "HealthModel", "HeartStore", "Ingest", "SourceEvents"]),
        // A network service's live view of heartd: follows the control socket (status, watch), keeps each device's
        // state, heart rate and rolling RMSSD, reconnects with back-off. heartd-web and heartd-mqtt build on it.
        .target(name: "LiveFeed", dependencies: [
            "Control", "HealthModel", "HeartQueries", "Posix", "Timers",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The daemon: services, capture sources, control handlers, live events, replay.
        .target(name: "HeartdKit", dependencies: [
            "BlueZ", "Capture", "Control", "DBus", "HealthModel", "HeartQueries", "HeartStore", "HeartdConfig", "Ingest",
            "LogFields", "Posix", "SourceEvents", "Systemd", "Timers",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The capture daemon links no network stack: no Sync, NIO, BoringSSL or PostgresNIO (checked by
        // PackageGraphTests and scripts/test.sh); what talks to the network is a program of its own.
        .executableTarget(name: "heartd", dependencies: [
            "HeartdCommandLine", "HeartdConfig", "HeartdKit", "HeartQueries", "Systemd", "TaskThreads",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Store → central PostgreSQL as its own program and unit (systemd/heartd-sync.service); was `heartd sync`.
        .executableTarget(name: "heartd-sync", dependencies: [
            "HeartdCommandLine", "HeartQueries", "Sync", "TaskThreads",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // The web dashboard as its own program and unit (systemd/heartd-web.service): a client of the control socket.
        .executableTarget(name: "heartd-web", dependencies: [
            "HeartdCommandLine", "HeartQueries", "LiveFeed", "TaskThreads", "Web", "WebConfig",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // heartd → MQTT topics and Home Assistant discovery, from the LiveFeed through the MQTT client.
        .target(name: "MQTTBridge", dependencies: [
            "HealthModel", "HeartQueries", "LiveFeed", "MQTT", "MQTTConfig",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // heartd's live sensors into MQTT as its own program and unit (systemd/heartd-mqtt.service).
        .executableTarget(name: "heartd-mqtt", dependencies: [
            "HeartdCommandLine", "HeartdConfig", "HeartQueries", "LiveFeed", "MQTT", "MQTTBridge", "TaskThreads",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The CLI links no BlueZ, D-Bus or libdbus (checked by PackageGraphTests and scripts/test.sh).
        .executableTarget(name: "heartctl", dependencies: [
            "Control", "HealthModel", "HeartQueries", "HeartRate", "HeartStore", "SourceEvents", "Sync",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "heartbench", dependencies: [
            "Capture", "Control", "DBus", "HeartdKit", "HeartQueries", "HeartRate", "HealthModel", "HeartStore", "Ingest", "IngestTestSupport", "Posix", "SourceEvents",
            "SeededRandom", "StrapLab", "Sync", "TestBus",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Test support shared by the test targets and heartbench: a private dbus-daemon, fixture processes, the fake
        // BlueZ's control interface, `eventually` (polling).
        .target(name: "TestBus", dependencies: ["DBus"], path: "Tests/TestBus"),
        // Test support: small real file systems (btrfs, xfs, ext4 on loop devices, tmpfs) for the full-disk tests.
        .target(name: "TestFileSystems", path: "Tests/TestFileSystems"),
        // Test support for the pipeline's users: an in-memory SeriesSink, a notification feeder on a thread of its own.
        .target(name: "IngestTestSupport", dependencies: ["HealthModel", "Ingest", "SourceEvents"], path: "Tests/IngestTestSupport"),
        .testTarget(name: "PosixTests", dependencies: ["Posix"]),
        .testTarget(name: "TimersTests", dependencies: ["TestBus", "Timers"]),
        .testTarget(name: "TaskThreadsTests", dependencies: ["Posix", "TaskThreads", "TestBus"]),
        // A program that installs the pool as the global executor and checks what reaches it (TaskThreadsTests
        // runs it: the installation only takes in a fresh process).
        .executableTarget(name: "TaskThreadsCheck", dependencies: ["TaskThreads"], path: "Tests/TaskThreadsCheck"),
        .testTarget(name: "LogFieldsTests", dependencies: ["LogFields", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestBus", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "BlueZTests", dependencies: ["BlueZ", "DBus", "Posix"], resources: [.copy("Fixtures")]),
        .testTarget(name: "CaptureTests", dependencies: ["BlueZ", "Capture", "DBus", "HealthModel", "HeartRate", "LogFields", "SourceEvents",
                                                        "Systemd", "TestBus",
                                                        .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HeartRateTests", dependencies: ["HeartRate", "SeededRandom"], resources: [.copy("Fixtures")]),
        .testTarget(name: "HealthModelTests", dependencies: ["HealthModel", "SeededRandom"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SourceEventsTests", dependencies: ["SourceEvents"]),
        .testTarget(name: "SeededRandomTests", dependencies: ["SeededRandom"]),
        .testTarget(name: "HeartStoreTests", dependencies: [
            "HeartStore", "HealthModel", "SeededRandom", "TestFileSystems", .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        .testTarget(name: "IngestTests", dependencies: ["Ingest", "IngestTestSupport", "HeartRate", "HealthModel", "SeededRandom", "SourceEvents",
                                                       "StrapLab", "TestBus"]),
        .testTarget(name: "StrapLabTests", dependencies: ["StrapLab", "Ingest", "HeartRate"]),
        .testTarget(name: "ControlTests", dependencies: ["Control", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "SystemdTests", dependencies: ["Posix", "Systemd", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HeartdConfigTests", dependencies: ["HeartdConfig", "MQTTConfig", "SyncConfig", "Systemd", "WebConfig",
                                                             .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "HeartQueriesTests", dependencies: ["Control", "HeartQueries", "HealthModel", "Ingest", "SourceEvents"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "SyncTests", dependencies: [
            "Sync", "HeartQueries", "HeartStore", "HealthModel", "TestBus",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "MQTTTests", dependencies: [
            "MQTT", "TestBus",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
        ]),
        // heartd-mqtt end to end: heartd --simulate, heartd-mqtt and mosquitto as processes.
        .testTarget(name: "MQTTBridgeTests", dependencies: ["HealthModel", "LiveFeed", "MQTTBridge", "TestBus"]),
        .testTarget(name: "LiveFeedTests", dependencies: [
            "Control", "HealthModel", "HeartQueries", "Ingest", "LiveFeed", .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "WebTests", dependencies: [
            "HealthModel", "HeartQueries", "LiveFeed", "TestBus", "Web", "WebConfig", "DBus",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
        ], resources: [.copy("Browser")]),
        .testTarget(name: "HeartdKitTests", dependencies: [
            "BlueZ", "Capture", "Control", "DBus", "HealthModel", "HeartQueries", "HeartStore", "HeartdConfig", "HeartdKit", "Ingest",
            "IngestTestSupport", "Posix", "SeededRandom", "SourceEvents", "Systemd", "TaskThreads", "TestBus", "TestFileSystems",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
