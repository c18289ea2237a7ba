// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "heartd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "heartd", targets: ["heartd"]),
        .executable(name: "heartctl", targets: ["heartctl"]),
        .executable(name: "heartbench", targets: ["heartbench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        // C shim: libdbus-1 macros and varargs made importable.
        .systemLibrary(name: "CDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        // C shim: Linux calls glibc hides behind _GNU_SOURCE or macros (recvmmsg, SO_TIMESTAMPNS, CMSG_*, timerfd).
        .target(name: "CLinux"),
        // D-Bus binding: connection on one serial queue, messages, typed values, errors.
        .target(name: "DBus", dependencies: [
            "CDBus", "CLinux",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // One timerfd thread for many deadlines: what wakes the daemon instead of periodic ticks.
        .target(name: "Timers", dependencies: ["CLinux"]),
        // BlueZ client: mirrored ObjectManager state, handles, sessions per device.
        .target(name: "BlueZ", dependencies: [
            "CLinux", "DBus", "HeartRate", "HealthModel", "Timers",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Pure decoders for GATT characteristics (no I/O).
        .target(name: "HeartRate"),
        // Pure health model: units, quantity types, samples, series builders, statistics, HRV.
        .target(name: "HealthModel"),
        // SQLite store (GRDB): migrations, records, compact series encodings, queries.
        .target(name: "HeartStore", dependencies: [
            "HealthModel",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Ingest pipeline: sources → device sessions → builders → store.
        .target(name: "Ingest", dependencies: [
            "HeartRate", "HealthModel", "HeartStore",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Control protocol (JSON lines) and the Unix socket server/client.
        .target(name: "Control", dependencies: [
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // sd_notify and a journald LogHandler, without libsystemd.
        .target(name: "Systemd", dependencies: [
            .product(name: "Logging", package: "swift-log"),
            .product(name: "SystemPackage", package: "swift-system"),
        ]),
        // Store → central PostgreSQL: anchored changes in batches, the delivered anchor in the same transaction.
        .target(name: "Sync", dependencies: [
            "HealthModel", "HeartStore", "Systemd", "Timers",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ]),
        // The daemon's parts: configuration, services, replay, simulator, control handlers.
        .target(name: "HeartdKit", dependencies: [
            "BlueZ", "DBus", "HeartRate", "HealthModel", "HeartStore", "Ingest", "Control", "Systemd", "Sync", "Timers",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .executableTarget(name: "heartd", dependencies: [
            "HeartdKit", "Sync",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "heartctl", dependencies: [
            "HeartdKit", "Control", "HeartRate", "HealthModel", "HeartStore", "Sync",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "heartbench", dependencies: [
            "HeartdKit", "HeartRate", "HealthModel", "HeartStore", "Ingest", "Sync", "TestBus",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Test support shared by the D-Bus and BlueZ tests: a private dbus-daemon, fixture processes.
        .target(name: "TestBus", path: "Tests/TestBus"),
        .testTarget(name: "TimersTests", dependencies: ["Timers"]),
        .testTarget(name: "DBusTests", dependencies: ["DBus", "TestBus"]),
        .testTarget(name: "BlueZTests", dependencies: ["BlueZ", "DBus", "HealthModel", "TestBus"], resources: [.copy("Fixtures")]),
        .testTarget(name: "HeartRateTests", dependencies: ["HeartRate"], resources: [.copy("Fixtures")]),
        .testTarget(name: "HealthModelTests", dependencies: ["HealthModel"], resources: [.copy("Fixtures")]),
        .testTarget(name: "HeartStoreTests", dependencies: ["HeartStore", "HealthModel"]),
        .testTarget(name: "IngestTests", dependencies: ["Ingest", "HeartRate", "HealthModel", "HeartStore"]),
        .testTarget(name: "ControlTests", dependencies: ["Control"]),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "SyncTests", dependencies: [
            "Sync", "HeartStore", "HealthModel", "TestBus",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "HeartdKitTests", dependencies: [
            "HeartdKit", "HeartStore", "HealthModel", "Ingest", "DBus", "Systemd", "TestBus",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
