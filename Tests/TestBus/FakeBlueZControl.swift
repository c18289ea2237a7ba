import DBus
import Foundation

/// The fake BlueZ's control interface (`org.heartd.FakeBlueZ`, Tests/BlueZTests/Fixtures/fake_bluez.py): send
/// notifications, read a device's counters. Shared by the daemon tests and `heartbench capture`.
public struct FakeBlueZControl: Sendable {
    /// The fake bluetoothd itself (run it with `Helper`).
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("BlueZTests/Fixtures/fake_bluez.py").path

    public let connection: DBusConnection

    public init(connection: DBusConnection) { self.connection = connection }

    public func call(_ member: String, _ args: [DBusValue]) async throws -> [DBusValue] {
        try await connection.call(destination: "org.bluez", path: "/org/heartd/fake", interface: "org.heartd.FakeBlueZ",
                                  member: member, arguments: args, timeout: .seconds(5))
    }

    /// Whether a client has subscribed to the device's heart-rate notifications with StartNotify.
    public func subscribed(_ address: String) async -> Bool {
        await stats(address)["subscribed"] == 1
    }

    /// The device's counters (`start_notify`, `acquire_notify`, `fd_open` …; fake_bluez.py `Stats`), empty on error.
    public func stats(_ address: String) async -> [String: Int] {
        let reply = try? await call("Stats", [.string(address)])
        return (reply?.first?.stringKeyedDictionary ?? [:]).compactMapValues(\.int)
    }
}
