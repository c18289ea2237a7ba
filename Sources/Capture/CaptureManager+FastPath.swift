import BlueZ
import DBus
import Logging
import LogFields

/// What runs off the actor: the D-Bus queue's fast path for heart-rate values, and the log fields of an object path.
extension CaptureManager {
    /// On the D-Bus queue: a Value for a routed characteristic goes straight to the event stream.
    /// Returns true when the signal needs nothing else.
    nonisolated static func fastPath(_ signal: DBusSignal, router: NotifyRouter, logger: Logger) -> Bool {
        guard signal.member == "PropertiesChanged", signal.arguments.count >= 2,
              let route = router.route(for: signal.path, sender: signal.sender),
              case .string(let iface) = signal.arguments[0], iface == BlueZ.gattCharacteristic,
              case .dict(_, _, let entries) = signal.arguments[1] else { return false }
        var onlyValue = true
        for entry in entries {
            guard case .string("Value") = entry.key else { onlyValue = false; continue }
            if case .bytes(let bytes) = entry.value.unwrapped {
                router.deliver(route, bytes: bytes)
            } else {
                let n = route.stats.malformed()
                if n == 1 || n % 100 == 0 {  // a broken peer may send these at notification rate
                    logger.warning("GATT Value with wrong D-Bus type dropped", metadata: [
                        LogField.device.key: .string(route.address), "path": .string(signal.path),
                        "signature": .string(entry.value.unwrapped.signature), "count": .stringConvertible(n)])
                }
            }
        }
        return onlyValue
    }

    /// `path`, `HEARTD_ADAPTER` when the object is an adapter or below one, `HEARTD_DEVICE` when a device or below.
    nonisolated static func pathFields(_ path: String) -> Logger.Metadata {
        var fields: Logger.Metadata = ["path": .string(path)]
        if let adapter = path.split(separator: "/").dropFirst(2).first, path.hasPrefix("/org/bluez/") {
            fields[LogField.adapter.key] = .string(String(adapter))
        }
        if let address = path.deviceAddress { fields[LogField.device.key] = .string(address) }
        return fields
    }
}
