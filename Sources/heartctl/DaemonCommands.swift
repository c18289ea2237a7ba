import ArgumentParser
import Control
import Foundation

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The daemon's state: sensors, heart rate, store.")
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "heartd sync's state file (default: $HEARTD_SYNC_STATE or /var/lib/heartd-sync/state.json).")
    var syncState: String?

    func run() async throws {
        try await runReporting {
            var s = try await global.transport().call("status", [:])
            let sync = SyncStatus.read(SyncStatus.path(syncState))
            if global.json {
                if case .object(var fields) = s, let sync { fields["sync"] = SyncStatus.json(sync); s = .object(fields) }
                return printJSON(s)
            }
            defer { if let sync { print(SyncStatus.text(sync)) } }
            print("heartd \(s["version"]?.cell ?? "?") (pid \(s["pid"]?.cell ?? "?"), \(s["mode"]?.cell ?? "?")), up \(s["uptime_s"]?.cell ?? "?") s")
            print("store: \(s["store"]?["path"]?.cell ?? "-") (\(s["store"]?["size_bytes"]?.cell ?? "?") bytes)")
            if let error = s["store"]?["sink"]?["lastError"], !error.isNull {
                print("store error: \(error.cell) (\(s["store"]?["sink"]?["queuedBeats"]?.cell ?? "0") beats waiting in memory)")
            }
            var table = Table("DEVICE", "NAME", "STATE", "BPM", "BATTERY", "LAST", "BEATS", "SERIES", "GAPS", "DROPPED")
            let now = Date()
            for d in s["devices"]?.arrayValue ?? [] {
                let last = d["lastNotification"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) }
                let age = last.map { String(format: "%.0fs ago", now.timeIntervalSince($0)) } ?? "-"
                let gaps = (d["counters"]?["gapsByRule"]?.objectValue ?? [:]).values.compactMap(\.intValue).reduce(0, +)
                let malformed = (d["counters"]?["malformedByCode"]?.objectValue ?? [:]).values.compactMap(\.intValue).reduce(0, +)
                let dropped = malformed + (d["counters"]?["droppedRR"]?.intValue ?? 0)
                table.add([d["address"]?.cell ?? "-", d["device"]?["name"]?.cell ?? "-",
                           d["connected"]?.boolValue == true ? "connected" : "disconnected",
                           d["currentBPM"]?.cell ?? "-", d["batteryPercent"].map { "\($0.cell)%" } ?? "-", age,
                           d["beatsInOpenSeries"]?.cell ?? "0", d["seriesFinished"]?.cell ?? "0", String(gaps), String(dropped)])
            }
            print(table.rows.isEmpty ? "no sensors seen yet" : table.render())
        }
    }
}

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Devices heartd has stored data from.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().call("devices", [:])
            if global.json { return printJSON(r) }
            var table = Table("ADDRESS", "NAME", "MANUFACTURER", "MODEL", "FIRMWARE", "LAST SEEN")
            for d in r["devices"]?.arrayValue ?? [] {
                let i = d["info"]
                table.add([d["address"]?.cell ?? "-", i?["name"]?.cell ?? "-", i?["manufacturer"]?.cell ?? "-",
                           i?["model"]?.cell ?? "-", i?["firmwareVersion"]?.cell ?? "-", d["lastSeen"]?.cell ?? "-"])
            }
            print(table.rows.isEmpty ? "no devices" : table.render())
        }
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow heart rate, beats and connections live (Ctrl-C stops).")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Only this device.") var device: String?
    @Flag(help: "Also print every beat.") var beats = false

    func run() async throws {
        try await runReporting {
            var params: [String: JSONValue] = [:]
            if let device { params["device"] = .string(device.uppercased()) }
            for try await event in try await global.transport().stream("watch", params) {
                if global.json {
                    var o = event.fields
                    o["event"] = .string(event.name)
                    printJSON(.object(o))
                    continue
                }
                let f = event.fields, dev = f["device"]?.cell ?? "-"
                switch event.name {
                case "heart-rate": print("\(f["at"]?.cell ?? "")  \(dev)  \(f["bpm"]?.cell ?? "-") bpm")
                case "beats" where beats:
                    for b in f["beats"]?.arrayValue ?? [] {
                        print("\(b["time"]?.cell ?? "")  \(dev)  beat\(b["gap"]?.boolValue == true ? " (after a gap)" : "")")
                    }
                case "beats": break
                case "connected": print("\(f["at"]?.cell ?? "")  \(dev)  connected \(f["info"]?["name"]?.cell ?? "")")
                case "disconnected": print("\(f["at"]?.cell ?? "")  \(dev)  disconnected (\(f["reason"]?.cell ?? ""))")
                case "battery": print("\(f["at"]?.cell ?? "")  \(dev)  battery \(f["percent"]?.cell ?? "-")%")
                case "series-finished": print("series finished: \(f["uuid"]?.cell ?? "") \(f["type"]?.cell ?? "") (\(f["reason"]?.cell ?? ""))")
                default: print("\(event.name) \(f)")
                }
                fflush(nil)
            }
        }
    }
}

struct Allow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start capturing a device (needs the admin group).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Bluetooth address, AA:BB:CC:DD:EE:FF.") var address: String

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().call("allow", ["address": .string(address)])
            global.json ? printJSON(r) : print("allowed \(r["allowed"]?.cell ?? address)")
        }
    }
}

struct Forget: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop capturing a device; its stored data is kept (needs the admin group).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Bluetooth address, AA:BB:CC:DD:EE:FF.") var address: String

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().call("forget", ["address": .string(address)])
            global.json ? printJSON(r) : print("forgot \(r["forgotten"]?.cell ?? address)")
        }
    }
}
