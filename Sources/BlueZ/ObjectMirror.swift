import DBus

/// BlueZ's object tree as last reported (GetManagedObjects + InterfacesAdded/Removed + PropertiesChanged).
/// Pure value; the capture manager owns one per connection.
public struct ObjectMirror: Sendable {
    public init() {}

    public typealias Properties = [String: DBusValue]
    /// path → interface → properties
    public private(set) var objects: [String: [String: Properties]] = [:]
    /// Times `Connected` was set from `ServicesResolved` (see `apply`).
    public private(set) var connectedInferred = 0

    public mutating func clear() { objects = [:] }

    /// Loads a `GetManagedObjects` reply (`a{oa{sa{sv}}}`). Returns false if it had the wrong shape.
    @discardableResult
    public mutating func load(_ reply: [DBusValue]) -> Bool {
        objects = [:]
        guard let tree = reply.first?.stringKeyedDictionary else { return false }
        for (path, ifaces) in tree where path.isPath(under: "/org/bluez") {
            guard let map = ifaces.stringKeyedDictionary else { continue }
            for (iface, props) in map {
                objects[path, default: [:]][iface] = Self.properties(props)
            }
        }
        return true
    }

    private static func properties(_ value: DBusValue) -> Properties {
        var out: Properties = [:]
        for (k, v) in value.stringKeyedDictionary ?? [:] { out[k] = v.unwrapped }
        return out
    }

    /// Applies one signal from org.bluez. Returns the path it touched, or nil if it was not a mirror signal.
    @discardableResult
    public mutating func apply(_ signal: DBusSignal) -> String? {
        let args = signal.arguments
        switch (signal.interface, signal.member) {
        case (BlueZ.objectManager, "InterfacesAdded"):
            guard args.count >= 2, let path = args[0].objectPath, path.isPath(under: "/org/bluez"),
                  let map = args[1].stringKeyedDictionary else { return nil }
            for (iface, props) in map { objects[path, default: [:]][iface] = Self.properties(props) }
            return path
        case (BlueZ.objectManager, "InterfacesRemoved"):
            guard args.count >= 2, let path = args[0].objectPath, let ifaces = args[1].stringArray else { return nil }
            for iface in ifaces { objects[path]?[iface] = nil }
            if objects[path]?.isEmpty == true { objects[path] = nil }
            return path
        case (BlueZ.properties, "PropertiesChanged"):
            guard args.count >= 2, let iface = args[0].string, objects[signal.path]?[iface] != nil,
                  let changed = args[1].stringKeyedDictionary else { return nil }
            for (k, v) in changed { objects[signal.path]?[iface]?[k] = v.unwrapped }
            if args.count >= 3, let invalidated = args[2].stringArray {
                for k in invalidated { objects[signal.path]?[iface]?[k] = nil }
            }
            // bluetoothd 5.66 sometimes never emits Connected=true for a device it connected as central (seen in
            // the lab with dbus-monitor: RSSI invalidated, then UUIDs/ServicesResolved/Name/Alias, no Connected;
            // GetManagedObjects says Connected=true). Services are only resolved over a connection, so
            // ServicesResolved=true stands for Connected=true.
            if iface == BlueZ.device, changed["ServicesResolved"]?.unwrapped.bool == true,
               objects[signal.path]?[iface]?["Connected"]?.bool != true {
                objects[signal.path]?[iface]?["Connected"] = .bool(true)
                connectedInferred += 1
            }
            return signal.path
        default:
            return nil
        }
    }

    public func properties(_ path: String, _ iface: String) -> Properties? { objects[path]?[iface] }

    /// What differs from `older`, as `path iface.key: old → new` lines (interfaces as `+iface` / `-iface`);
    /// used to tell whether a reload found something the signals had not brought. A characteristic's `Value` is
    /// left out: it changes with every notification, which its subscriber reads straight from the bus (a capture
    /// client's tap takes them before the mirror), so a reload during a stream always finds it "changed".
    public func differences(from older: ObjectMirror) -> [String] {
        var out: [String] = []
        for path in Set(objects.keys).union(older.objects.keys).sorted() {
            let new = objects[path] ?? [:], old = older.objects[path] ?? [:]
            for iface in Set(new.keys).union(old.keys).sorted() {
                guard let n = new[iface] else { out.append("\(path) -\(iface)"); continue }
                guard let o = old[iface] else { out.append("\(path) +\(iface)"); continue }
                for key in Set(n.keys).union(o.keys).sorted() where n[key] != o[key] {
                    if iface == BlueZ.gattCharacteristic && key == "Value" { continue }
                    out.append("\(path) \(iface.split(separator: ".").last ?? "").\(key): \(o[key].map(Self.brief) ?? "-") → \(n[key].map(Self.brief) ?? "-")")
                }
            }
        }
        return out
    }

    private static func brief(_ v: DBusValue) -> String {
        let s = "\(v)"
        return s.count > 40 ? String(s.prefix(40)) + "…" : s
    }

    /// Adapter paths (`/org/bluez/hciN`) with their properties.
    public var adapters: [(path: String, props: Properties)] {
        objects.compactMap { path, ifaces in ifaces[BlueZ.adapter].map { (path, $0) } }.sorted { $0.path < $1.path }
    }

    public var devices: [(path: String, props: Properties)] {
        objects.compactMap { path, ifaces in ifaces[BlueZ.device].map { (path, $0) } }.sorted { $0.path < $1.path }
    }

    /// Characteristic paths under a device, keyed by lower-case UUID (first one wins).
    public func characteristics(under devicePath: String) -> [String: (path: String, flags: [String])] {
        var out: [String: (path: String, flags: [String])] = [:]
        for (path, ifaces) in objects.sorted(by: { $0.key < $1.key }) where path.hasPrefix(devicePath + "/") {
            guard let props = ifaces[BlueZ.gattCharacteristic], let uuid = props["UUID"]?.string?.lowercased() else {
                continue
            }
            if out[uuid] == nil { out[uuid] = (path, props["Flags"]?.stringArray ?? []) }
        }
        return out
    }
}
