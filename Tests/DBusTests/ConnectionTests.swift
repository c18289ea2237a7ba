import TestBus
import DBus
import Foundation
import Logging
import Testing

let testLogger = Logger(label: "dbus-tests")

/// A bus, a connection to it, and optionally the echo service.
struct Fixture {
    let bus: PrivateBus
    let connection: DBusConnection
    var echo: Helper?

    static func make(withEcho: Bool = false) async throws -> Fixture {
        let bus = try PrivateBus()
        let connection = try await DBusConnection.connect(address: bus.address, logger: testLogger)
        var f = Fixture(bus: bus, connection: connection, echo: nil)
        if withEcho {
            f.echo = try Helper(script: echoServiceScript, name: "echo.py", in: bus.dir, arguments: [bus.address])
            let deadline = Date().addingTimeInterval(10)
            while try await connection.nameOwner("org.heartd.Test") == nil {
                guard Date() < deadline else { throw TestFailure("echo service did not start") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return f
    }

    func echo(_ args: [DBusValue], timeout: Duration = .seconds(5)) async throws -> [DBusValue] {
        try await connection.call(destination: "org.heartd.Test", path: "/org/heartd/Test",
                                  interface: "org.heartd.Test", member: "Echo", arguments: args, timeout: timeout)
    }
}

@Suite struct ConnectionTests {
    @Test func listNamesAndOwnerRoundTrip() async throws {
        let f = try await Fixture.make()
        defer { f.connection.close() }
        #expect(f.connection.uniqueName.hasPrefix(":"))
        let names = try await f.connection.listNames()
        #expect(names.contains("org.freedesktop.DBus"))
        #expect(names.contains(f.connection.uniqueName))
        #expect(try await f.connection.nameOwner("org.freedesktop.DBus") == "org.freedesktop.DBus")
        #expect(try await f.connection.nameOwner("org.nobody.Here") == nil)
    }

    @Test func unknownDestinationIsServiceUnknown() async throws {
        let f = try await Fixture.make()
        defer { f.connection.close() }
        let error = await #expect(throws: DBusError.self) {
            _ = try await f.connection.call(destination: "org.nobody.Here", path: "/", interface: "org.x.Y", member: "Z")
        }
        #expect(error?.code == .serviceUnknown)
    }

    @Test func invalidArgumentsAreRejectedBeforeSending() async throws {
        let f = try await Fixture.make()
        defer { f.connection.close() }
        for bad in [("not a path", "org.x.Y"), ("/ok", "no dots")] {
            let error = await #expect(throws: DBusError.self) {
                _ = try await f.connection.call(destination: "org.freedesktop.DBus", path: bad.0,
                                                interface: bad.1, member: "Z")
            }
            #expect(error?.code == .invalidArgs)
        }
        let mixed = await #expect(throws: DBusError.self) {
            _ = try await f.connection.call(destination: "org.freedesktop.DBus", path: "/", interface: "org.x.Y",
                                            member: "Z", arguments: [.array(elementSignature: "s", [.int32(1)])])
        }
        #expect(mixed?.code == .invalidArgs)
    }

    @Test func connectToMissingSocketFails() async throws {
        let error = await #expect(throws: DBusError.self) {
            _ = try await DBusConnection.connect(address: "unix:path=/nonexistent/heartd-test-bus", logger: testLogger)
        }
        #expect(error?.code == .connectFailed)
    }

    @Test func systemBusAddressHonoursEnvironment() {
        let env = ProcessInfo.processInfo.environment["DBUS_SYSTEM_BUS_ADDRESS"]
        if let env, !env.isEmpty {
            #expect(DBusConnection.systemBusAddress == env)
        } else {
            #expect(DBusConnection.systemBusAddress == "unix:path=/var/run/dbus/system_bus_socket")
        }
    }

    @Test func callTimesOutWithNoReply() async throws {
        let f = try await Fixture.make(withEcho: true)
        defer { f.connection.close() }
        let start = ContinuousClock.now
        let error = await #expect(throws: DBusError.self) {
            _ = try await f.connection.call(destination: "org.heartd.Test", path: "/org/heartd/Test",
                                            interface: "org.heartd.Test", member: "Sleep", timeout: .milliseconds(300))
        }
        let elapsed = ContinuousClock.now - start
        #expect(error?.code == .noReply)
        #expect(elapsed >= .milliseconds(280))
        #expect(elapsed < .seconds(3))
    }

    @Test func cancellingTheTaskCancelsTheCall() async throws {
        let f = try await Fixture.make(withEcho: true)
        defer { f.connection.close() }
        let connection = f.connection
        let start = ContinuousClock.now
        let pending = Task {
            try await connection.call(destination: "org.heartd.Test", path: "/org/heartd/Test",
                                      interface: "org.heartd.Test", member: "Sleep", timeout: .seconds(20))
        }
        try await Task.sleep(for: .milliseconds(100))  // the call is on its way (no hook to wait for: it is pending)
        pending.cancel()
        let error = await #expect(throws: DBusError.self) { _ = try await pending.value }
        #expect(error?.code == .cancelled)
        #expect(ContinuousClock.now - start < .seconds(3))
        // already cancelled before the call starts
        let early = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await connection.listNames()
        }
        let earlyError = await #expect(throws: DBusError.self) { _ = try await early.value }
        #expect(earlyError?.code == .cancelled)
        #expect(try await connection.listNames().contains(connection.uniqueName))  // connection still fine
    }

    @Test func remoteErrorKeepsNameAndMessage() async throws {
        let f = try await Fixture.make(withEcho: true)
        defer { f.connection.close() }
        let error = await #expect(throws: DBusError.self) {
            _ = try await f.connection.call(destination: "org.heartd.Test", path: "/org/heartd/Test",
                                            interface: "org.heartd.Test", member: "Fail")
        }
        #expect(error?.name == "org.heartd.Test.Error.Boom")
        #expect(error?.message == "boom")
        #expect(error?.code == .other)
    }

    @Test func daemonKilledFailsPendingCallAndEndsStreams() async throws {
        let f = try await Fixture.make(withEcho: true)
        let stream = f.connection.signals(matching: [MatchRule(interface: "org.heartd.Test")])
        let start = ContinuousClock.now
        let connection = f.connection
        let pending = Task {
            try await connection.call(destination: "org.heartd.Test", path: "/org/heartd/Test",
                                      interface: "org.heartd.Test", member: "Sleep", timeout: .seconds(20))
        }
        try await Task.sleep(for: .milliseconds(200))  // the call is on its way (no hook to wait for: it is pending)
        f.bus.kill()
        let error = await #expect(throws: DBusError.self) { _ = try await pending.value }
        #expect(error?.code == .disconnected)
        await f.connection.waitUntilDisconnected()
        #expect(!f.connection.isConnected)
        var count = 0
        for await _ in stream { count += 1 }  // must end, not hang
        #expect(count == 0)
        #expect(ContinuousClock.now - start < .seconds(5))
        let after = await #expect(throws: DBusError.self) { _ = try await f.connection.listNames() }
        #expect(after?.code == .disconnected)
    }

    @Test func closeEndsEverything() async throws {
        let f = try await Fixture.make()
        let stream = f.connection.signals(matching: [MatchRule()])
        f.connection.close()
        await f.connection.waitUntilDisconnected()
        for await _ in stream {}
        let error = await #expect(throws: DBusError.self) { _ = try await f.connection.listNames() }
        #expect(error?.code == .disconnected)
    }
}
