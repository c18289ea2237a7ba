import Testing
@testable import Systemd

@Suite struct SystemdNotifierTests {
    @Test func sendsReadyAndStatusToPathSocket() throws {
        let receiver = try DatagramReceiver()
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.address])
        #expect(notifier.isEnabled)
        try notifier.ready(status: "listening\non 2 adapters")
        let message = String(decoding: try receiver.receive().bytes, as: UTF8.self)
        #expect(message == "READY=1\nSTATUS=listening on 2 adapters")
    }

    @Test func sendsToAbstractSocket() throws {
        let receiver = try DatagramReceiver(abstract: true)
        #expect(receiver.address.hasPrefix("@"))
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": receiver.address])
        try notifier.watchdog()
        #expect(String(decoding: try receiver.receive().bytes, as: UTF8.self) == "WATCHDOG=1")
        try notifier.stopping()
        #expect(String(decoding: try receiver.receive().bytes, as: UTF8.self) == "STOPPING=1")
        try notifier.mainPID(4242)
        #expect(String(decoding: try receiver.receive().bytes, as: UTF8.self) == "MAINPID=4242")
    }

    @Test func isNoOpWithoutNotifySocket() throws {
        let notifier = try SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        try notifier.ready()
        try notifier.watchdog()
        #expect(notifier.watchdogInterval == nil)
    }

    @Test func sendFailureIsATypedError() throws {
        let notifier = try SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent-dir-heartd/notify"])
        #expect(throws: SystemdError.self) { try notifier.ready() }
        do { try notifier.ready() } catch { #expect(error.code == .sendFailed) }
    }

    @Test func rejectsOverlongSocketPath() {
        let long = "/" + String(repeating: "a", count: 200)
        #expect(throws: SystemdError(.invalidSocketPath, "socket address longer than 107 bytes: \(long)")) {
            _ = try SystemdNotifier(environment: ["NOTIFY_SOCKET": long])
        }
    }

    @Test func watchdogIntervalFromEnvironment() {
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"], pid: 7) == .seconds(30))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], pid: 7) == .seconds(30))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "8"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "soon"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: [:], pid: 7) == nil)
    }
}
