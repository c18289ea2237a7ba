import DBus

/// A device BlueZ knows of (a Device1 object in the mirror) as discovery describes it: address, name, signal
/// strength and advertised service UUIDs. Generic: which sightings matter is the caller's policy.
public struct DeviceSighting: Sendable, Hashable {
    /// The Device1 object path.
    public var path: String
    /// The adapter that saw it.
    public var adapterPath: String
    /// Upper case.
    public var address: String
    /// `Name`, else `Alias` (bluetoothd makes an alias of the address when there is no name: that one is left out).
    public var name: String?
    /// `RSSI` in dBm: present while the device is heard by discovery.
    public var rssi: Int?
    /// `UUIDs`, lower case.
    public var uuids: [String]
    public var connected: Bool

    public init?(path: String, properties props: ObjectMirror.Properties) {
        guard let address = props["Address"]?.string?.uppercased() else { return nil }
        self.path = path
        self.address = address
        adapterPath = props["Adapter"]?.objectPath ?? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        let alias = props["Alias"]?.string.flatMap { $0.replacingOccurrences(of: ":", with: "-").uppercased()
            == address.replacingOccurrences(of: ":", with: "-") ? nil : $0 }
        name = props["Name"]?.string ?? alias
        rssi = props["RSSI"]?.int
        uuids = (props["UUIDs"]?.stringArray ?? []).map { $0.lowercased() }
        connected = props["Connected"]?.bool == true
    }
}

extension ObjectMirror {
    /// Every Device1 object the mirror holds, by path.
    public var sightings: [DeviceSighting] {
        devices.compactMap { DeviceSighting(path: $0.path, properties: $0.props) }
    }
}
