import BlueZ
import SourceEvents

/// What the mirror says about adapters and wanted devices, as `AdapterPlanner` needs it: which allowed, powered
/// adapters see each wanted device (by address: one sensor has a device object under every adapter that saw it),
/// and how many links each adapter has (any client's: they all take controller slots).
struct AdapterSurvey {
    /// Allowed adapters BlueZ has (powered or not).
    let allowed: [(path: String, name: String)]
    /// Paths of the allowed adapters that are powered.
    let powered: Set<String>
    /// Adapter path → BlueZ's `PowerState`, where bluetoothd exports it (5.66 only with `-E`, experimental).
    let powerStates: [String: AdapterPowerState]
    /// Address → adapter name → that adapter's object for the device.
    private(set) var seen: [String: [String: (path: String, adapter: String)]] = [:]
    /// Adapter name → devices connected through it.
    private(set) var connected: [String: Int] = [:]

    init(mirror: ObjectMirror, policy: CapturePolicy) {
        let adapters = mirror.adapters.filter { policy.allows(adapterPath: $0.path) }
        allowed = adapters.map { ($0.path, $0.path.lastPathComponent) }
        powered = Set(adapters.filter { $0.props["Powered"]?.bool == true }.map(\.path))
        powerStates = adapters.reduce(into: [:]) { states, a in
            states[a.path] = a.props["PowerState"]?.string.flatMap(AdapterPowerState.init(rawValue:))
        }
        for (path, props) in mirror.devices {
            guard let address = props["Address"]?.string?.uppercased() else { continue }
            let adapter = props["Adapter"]?.objectPath ?? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
            guard powered.contains(adapter), path.isPath(under: adapter) else { continue }
            if props["Connected"]?.bool == true { connected[adapter.lastPathComponent, default: 0] += 1 }
            guard policy.wants(address: address, uuids: props["UUIDs"]?.stringArray ?? []) else { continue }
            seen[address, default: [:]][adapter.lastPathComponent] = (path, adapter)
        }
    }

    /// The adapters that see each wanted device.
    var candidates: [String: Set<String>] { seen.mapValues { Set($0.keys) } }

    /// Device path → (address, adapter path) for a plan (address → adapter name).
    func devices(for plan: [String: String]) -> [String: (address: String, adapter: String)] {
        var out: [String: (address: String, adapter: String)] = [:]
        for (address, name) in plan { if let d = seen[address]?[name] { out[d.path] = (address, d.adapter) } }
        return out
    }

    /// Links through the adapter at `path`.
    func links(_ path: String) -> Int { connected[path.lastPathComponent] ?? 0 }
}
