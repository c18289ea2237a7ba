import DBus

/// Light handles on BlueZ objects: a connection and an object path (bluer style). Errors are `BlueZError`.
public struct Adapter: Sendable, Hashable {
    public let connection: DBusConnection
    public let path: String
    public init(connection: DBusConnection, path: String) {
        self.connection = connection
        self.path = path
    }
    /// `hci0`
    public var name: String { path.lastPathComponent }

    /// `SetDiscoveryFilter({UUIDs: [...], Transport: "le"})`.
    public func setDiscoveryFilter(uuids: [String], transport: String = "le") async throws {
        let filter = DBusValue.stringVariantDict([
            "UUIDs": .array(elementSignature: "s", uuids.map(DBusValue.string)),
            "Transport": .string(transport),
        ])
        try await bluez(connection, path, BlueZ.adapter, "SetDiscoveryFilter", [filter])
    }
    public func startDiscovery() async throws { try await bluez(connection, path, BlueZ.adapter, "StartDiscovery") }
    public func stopDiscovery() async throws { try await bluez(connection, path, BlueZ.adapter, "StopDiscovery") }

    public static func == (a: Adapter, b: Adapter) -> Bool { a.path == b.path && a.connection === b.connection }
    public func hash(into h: inout Hasher) { h.combine(path) }
}

public struct Device: Sendable, Hashable {
    public let connection: DBusConnection
    public let path: String
    public init(connection: DBusConnection, path: String) {
        self.connection = connection
        self.path = path
    }
    public func connect(timeout: Duration = .seconds(30)) async throws {
        try await bluez(connection, path, BlueZ.device, "Connect", timeout: timeout)
    }
    public func disconnect(timeout: Duration = .seconds(10)) async throws {
        try await bluez(connection, path, BlueZ.device, "Disconnect", timeout: timeout)
    }
    public static func == (a: Device, b: Device) -> Bool { a.path == b.path && a.connection === b.connection }
    public func hash(into h: inout Hasher) { h.combine(path) }
}

public struct GattCharacteristic: Sendable, Hashable {
    public let connection: DBusConnection
    public let path: String
    public init(connection: DBusConnection, path: String) {
        self.connection = connection
        self.path = path
    }
    /// `ReadValue({})` → bytes.
    public func readValue(timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        let reply = try await bluez(connection, path, BlueZ.gattCharacteristic, "ReadValue",
                                    [.stringVariantDict([:])], timeout: timeout)
        guard let bytes = reply.first?.bytes else {
            throw BlueZError(kind: .unexpectedReply, name: "heartd.BlueZ.UnexpectedReply",
                             message: "ReadValue returned \(reply.map(\.signature).joined())")
        }
        return bytes
    }
    public func startNotify() async throws { try await bluez(connection, path, BlueZ.gattCharacteristic, "StartNotify") }
    public func stopNotify() async throws { try await bluez(connection, path, BlueZ.gattCharacteristic, "StopNotify") }
    /// `AcquireNotify({})` → (socket, MTU). The socket is SOCK_SEQPACKET, one notification per datagram.
    public func acquireNotify() async throws -> (fd: UnixFileDescriptor, mtu: Int) {
        let reply = try await bluez(connection, path, BlueZ.gattCharacteristic, "AcquireNotify",
                                    [.stringVariantDict([:])])
        guard reply.count >= 2, let fd = reply[0].unixFD, let mtu = reply[1].int else {
            throw BlueZError(kind: .unexpectedReply, name: "heartd.BlueZ.UnexpectedReply",
                             message: "AcquireNotify returned \(reply.map(\.signature).joined())")
        }
        return (fd, mtu)
    }
    public static func == (a: GattCharacteristic, b: GattCharacteristic) -> Bool {
        a.path == b.path && a.connection === b.connection
    }
    public func hash(into h: inout Hasher) { h.combine(path) }
}

/// One call to org.bluez with errors mapped to `BlueZError`.
@discardableResult
func bluez(_ connection: DBusConnection, _ path: String, _ interface: String, _ member: String,
           _ arguments: [DBusValue] = [], timeout: Duration = .seconds(25)) async throws -> [DBusValue] {
    do {
        return try await connection.call(destination: BlueZ.service, path: path, interface: interface,
                                          member: member, arguments: arguments, timeout: timeout)
    } catch {
        throw BlueZError.wrap(error)
    }
}
