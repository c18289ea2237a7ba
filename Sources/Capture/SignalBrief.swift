import DBus

extension DBusSignal {
    /// A short form of a mirror signal for debug logs: changed keys with values, added/removed interfaces.
    var brief: String {
        let args = arguments
        func short(_ v: DBusValue) -> String {
            switch v.unwrapped {
            case .bool(let b): "\(b)"
            case .string(let s), .objectPath(let s): s
            case .bytes(let b): "\(b.count) bytes"
            default: v.unwrapped.signature
            }
        }
        switch member {
        case "PropertiesChanged" where args.count >= 2:
            let changed = (args[1].stringKeyedDictionary ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\(short($0.value))" }
            let gone = args.count >= 3 ? (args[2].stringArray ?? []).map { "-\($0)" } : []
            return "\(args[0].string ?? "?") " + (changed + gone).joined(separator: ",")
        case "InterfacesAdded" where args.count >= 2:
            return (args[1].stringKeyedDictionary ?? [:]).keys.filter { $0.hasPrefix("org.bluez") }.sorted().joined(separator: ",")
        case "InterfacesRemoved" where args.count >= 2:
            return (args[1].stringArray ?? []).joined(separator: ",")
        default:
            return ""
        }
    }
}
