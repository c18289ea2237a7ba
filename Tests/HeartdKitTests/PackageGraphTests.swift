import Foundation
import TestBus
import Testing

/// Package.swift says what the code does: heartctl's graph has no Bluetooth or D-Bus, the built heartctl links no
/// libdbus, the capture daemon's graph has no network stack, and every target's imports equal its declared
/// dependencies (no declared-but-unused, no used-but-undeclared).
@Suite(.serialized) struct PackageGraphTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    /// Modules of the toolchain and the OS: imported without a declaration. (Module names start upper-case, which
    /// also keeps out the `import dbus` of the Python fixtures embedded in Swift strings.)
    static let system: Set<String> = ["Foundation", "FoundationXML", "FoundationEssentials", "Glibc", "Dispatch",
                                      "Synchronization", "Testing", "XCTest"]
    // Timers (a timerfd, shared with sync's retry backoff) is not Bluetooth: heartctl may reach it through Sync.
    static let bluetooth: Set<String> = ["BlueZ", "Capture", "DBus", "CDBus"]
    /// What talks to the network: heartd's own Sync and the packages under it (the NIO products, PostgresNIO,
    /// NIOSSL and its BoringSSL). A name that starts with "NIO" counts too, so a new NIO product cannot slip in.
    static let network: Set<String> = ["Sync", "PostgresNIO", "NIOSSL", "CNIOBoringSSL", "CNIOBoringSSLShims"]
    static func isNetwork(_ name: String) -> Bool { network.contains(name) || name.hasPrefix("NIO") }

    struct Target {
        let name: String
        let path: String
        let dependencies: [String]
    }

    /// The manifest as SwiftPM reads it (`dump-package`; its own scratch path, so it never waits for the lock of
    /// the build that runs these tests).
    static func targets() throws -> [String: Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("heartd-dump-\(getpid())")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", root.path, "--scratch-path", scratch.path,
                             "dump-package"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "swift package dump-package failed")
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var result: [String: Target] = [:]
        for t in json["targets"] as? [[String: Any]] ?? [] {
            let name = t["name"] as? String ?? ""
            let type = t["type"] as? String ?? ""
            let defaultDir = type == "test" ? "Tests" : "Sources"
            let deps = (t["dependencies"] as? [[String: Any]] ?? []).compactMap { d -> String? in
                if let byName = d["byName"] as? [Any] { return byName.first as? String }
                if let target = d["target"] as? [Any] { return target.first as? String }
                if let product = d["product"] as? [Any] { return product.first as? String }
                return nil
            }
            result[name] = Target(name: name, path: t["path"] as? String ?? "\(defaultDir)/\(name)", dependencies: deps)
        }
        return result
    }

    static func closure(of name: String, in targets: [String: Target]) -> Set<String> {
        var seen: Set<String> = []
        var stack = [name]
        while let next = stack.popLast() {
            for d in targets[next]?.dependencies ?? [] where seen.insert(d).inserted { stack.append(d) }
        }
        return seen
    }

    @Test func heartctlDependsOnNoBluetoothOrDBus() throws {
        let targets = try Self.targets()
        let graph = Self.closure(of: "heartctl", in: targets)
        #expect(graph.contains("HeartQueries"))
        #expect(graph.intersection(Self.bluetooth).isEmpty, "heartctl reaches \(graph.intersection(Self.bluetooth))")
        #expect(Self.closure(of: "heartd", in: targets).isSuperset(of: ["Capture", "DBus"]))
    }

    /// The capture daemon keeps `PrivateNetwork=yes` and links no network stack (issue 27): what talks to the
    /// network is heartd-sync (and heartctl, a client). HeartdConfig reaches only SyncConfig, the `[sync]` settings.
    @Test func heartdDependsOnNoNetworkStack() throws {
        let targets = try Self.targets()
        for name in ["heartd", "HeartdConfig", "HeartdKit"] {
            let reached = Self.closure(of: name, in: targets).filter(Self.isNetwork)
            #expect(reached.isEmpty, "\(name) reaches \(reached.sorted())")
        }
        #expect(Self.closure(of: "HeartdConfig", in: targets).contains("SyncConfig"))
        // heartd-sync is the control case: the same walk finds the network stack there.
        let sync = Self.closure(of: "heartd-sync", in: targets)
        #expect(sync.isSuperset(of: ["Sync", "PostgresNIO", "NIOSSL", "NIOCore"]), "heartd-sync reaches \(sync.sorted())")
        #expect(sync.intersection(Self.bluetooth).isEmpty, "heartd-sync reaches \(sync.intersection(Self.bluetooth))")
        // heartd-web too (docs/WEB.md): Hummingbird (over NIO), no Bluetooth or D-Bus; HeartdConfig reaches only WebConfig.
        let web = Self.closure(of: "heartd-web", in: targets)
        #expect(web.isSuperset(of: ["Web", "Hummingbird", "HummingbirdWebSocket"]), "heartd-web reaches \(web.sorted())")
        #expect(web.intersection(Self.bluetooth).isEmpty, "heartd-web reaches \(web.intersection(Self.bluetooth))")
        #expect(Self.closure(of: "HeartdConfig", in: targets).contains("WebConfig"))
        // heartd-mqtt: the network and the live feed; no Bluetooth, no Sync (its unit cannot even see the store).
        let mqtt = Self.closure(of: "heartd-mqtt", in: targets)
        #expect(mqtt.isSuperset(of: ["MQTT", "MQTTBridge", "LiveFeed", "NIOSSL", "NIOCore"]), "heartd-mqtt reaches \(mqtt.sorted())")
        #expect(mqtt.intersection(Self.bluetooth).isEmpty, "heartd-mqtt reaches \(mqtt.intersection(Self.bluetooth))")
        #expect(!mqtt.contains("Sync"), "heartd-mqtt reaches Sync")
    }

    /// The same on the built binary: no symbol of NIOCore, PostgresNIO or BoringSSL in heartd (Swift's mangled names
    /// carry the module; BoringSSL's C symbols are prefixed CNIOBoringSSL_). scripts/test.sh checks it too.
    @Test func builtHeartdHasNoNetworkSymbols() throws {
        let pattern = try Regex("NIOCore|PostgresNIO|BoringSSL")
        let heartd = try Self.symbols(of: BuiltProducts.path("heartd"))
        #expect(heartd.count > 1000, "nm listed \(heartd.count) symbols")  // nm really read the binary
        let found = heartd.filter { $0.contains(pattern) }
        #expect(found.isEmpty, "heartd links \(found.count) network symbols, e.g. \(found.prefix(3))")
        // heartd-sync is the control case: the same search finds them there.
        #expect(try Self.symbols(of: BuiltProducts.path("heartd-sync")).contains { $0.contains(pattern) })
    }

    /// The defined symbols of an executable, as `nm` prints them.
    static func symbols(of path: String) throws -> [Substring] {
        let nm = Process()
        nm.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        nm.arguments = ["nm", "--defined-only", path]
        let out = Pipe()
        nm.standardOutput = out
        try nm.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        nm.waitUntilExit()
        try #require(nm.terminationStatus == 0, "nm \(path) failed")
        return text.split(separator: "\n")
    }

    @Test func builtHeartctlLinksNoLibdbus() throws {
        let heartctl = try BuiltProducts.path("heartctl")
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [heartctl]
        let out = Pipe()
        ldd.standardOutput = out
        try ldd.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        #expect(text.contains("libc.so"))  // ldd really listed the libraries
        #expect(!text.contains("dbus"), "heartctl links: \(text)")
        // heartd is the control case: the same check finds libdbus there.
        let heartd = Process()
        heartd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        heartd.arguments = [try BuiltProducts.path("heartd")]
        let heartdOut = Pipe()
        heartd.standardOutput = heartdOut
        try heartd.run()
        let heartdText = String(decoding: heartdOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        heartd.waitUntilExit()
        #expect(heartdText.contains("libdbus-1"))
    }

    @Test func importsEqualDeclaredDependencies() throws {
        let targets = try Self.targets()
        let importLine = try Regex(#"^(?:@testable |internal |@preconcurrency |@_exported )*import ([A-Z]\w*)"#)
            .anchorsMatchLineEndings()
        var problems: [String] = []
        for target in targets.values.sorted(by: { $0.name < $1.name }) {
            let dir = Self.root.appendingPathComponent(target.path)
            guard let files = FileManager.default.enumerator(atPath: dir.path) else { continue }
            var imported: Set<String> = []
            var sawSwift = false
            for case let file as String in files where file.hasSuffix(".swift") && !file.hasPrefix("Fixtures/") {
                sawSwift = true
                let text = try String(contentsOf: dir.appendingPathComponent(file), encoding: .utf8)
                for match in text.matches(of: importLine) { imported.insert(String(match.output[1].substring ?? "")) }
            }
            guard sawSwift else { continue }  // C and system-library targets
            imported.subtract(Self.system)
            imported.remove(target.name)
            let declared = Set(target.dependencies)
            let undeclared = imported.subtracting(declared), unused = declared.subtracting(imported)
            if !undeclared.isEmpty { problems.append("\(target.name) imports undeclared \(undeclared.sorted())") }
            if !unused.isEmpty { problems.append("\(target.name) declares unused \(unused.sorted())") }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "; "))")
    }
}
