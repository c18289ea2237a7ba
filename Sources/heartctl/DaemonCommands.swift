import ArgumentParser
import Control
import Foundation
import HealthModel
import HeartQueries
import SourceEvents
import Sync

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The daemon's state: sensors, heart rate, store.")
    @OptionGroup var global: GlobalOptions

    @Option(name: .long, help: "heartd-sync's state file (default: $HEARTD_SYNC_STATE or /var/lib/heartd-sync/state.json).")
    var syncState: String?

    func run() async throws {
        try await runReporting {
            var result = try await global.transport().json(StatusCall.self, NoParams())
            // The sync process is another service: its state comes from its state file, not from the daemon.
            let sync = SyncStatus.read(SyncStatus.path(syncState))
            if global.json {
                if case .object(var fields) = result, let sync { fields["sync"] = JSONBridge.value(sync); result = .object(fields) }
                return printJSON(result)
            }
            defer { if let sync { print(sync.text()) } }
            let s = try typedResult(StatusCall.self, result)
            print("heartd \(s.version) (pid \(s.pid), \(s.mode.rawValue)), up \(Int(s.uptimeSeconds)) s")
            print("store: \(s.store.path ?? "-") (\(s.store.sizeBytes) bytes)")
            switch s.store.state {
            case .writing:
                if s.store.sink.droppedBeats > 0 {
                    print("store: \(s.store.sink.droppedBeats) beats were dropped while it could not write")
                }
            case .failing, .notOpen:
                let since = s.store.failingSince.map { " since \(ISO8601DateFormatter().string(from: $0))" } ?? ""
                let what = s.store.state == .notOpen ? "CANNOT OPEN THE STORE" : "CANNOT WRITE THE STORE"
                print("store: \(what)\(since): \(s.store.error ?? "-")")
                print("store: capture goes on; \(s.store.sink.queuedBeats) beats waiting in memory, "
                      + "\(s.store.sink.droppedBeats) dropped (store.memory_buffer_beats)")
            }
            var table = Table("DEVICE", "NAME", "STATE", "BPM", "BATTERY", "LAST", "BEATS", "SERIES", "GAPS", "DROPPED",
                              "NOTIFY")
            let now = Date()
            // the capture client's view: the subscription each sensor's connection uses
            let links = Dictionary((s.capture.bluez?.devices ?? []).map { ($0.address, $0) }) { first, _ in first }
            for d in s.devices {
                let age = d.lastNotification.map { String(format: "%.0fs ago", now.timeIntervalSince($0)) } ?? "-"
                let gaps = d.counters.gapsByRule.values.reduce(0, +)
                let dropped = d.counters.malformed + d.counters.droppedRR
                table.add([d.address, d.device?.name ?? "-", d.connected ? (d.contact == false ? "no contact" : "connected") : "disconnected",
                           d.currentBPM.map(String.init) ?? "-", d.batteryPercent.map { "\($0)%" } ?? "-", age,
                           String(d.beatsInOpenSeries), String(d.seriesFinished), String(gaps), String(dropped),
                           Status.subscription(links[d.address])])
            }
            print(table.rows.isEmpty ? "no sensors seen yet" : table.render())
            if !s.sessions.isEmpty { print(Status.sessionTable(s.sessions)) }
            if let adapters = s.capture.bluez?.adapters, !adapters.isEmpty {
                // each sensor is captured through one adapter; LIMIT is configured, or learned from the controller
                var slots = Table("ADAPTER", "POWERED", "ASSIGNED", "CONNECTED", "LIMIT")
                for a in adapters {
                    slots.add([a.name, Status.power(a, now: now), String(a.assigned), String(a.connected),
                               a.limitLearned ? "\(a.limit) (learned)" : String(a.limit)])
                }
                print(slots.render())
                if adapters.contains(where: { !$0.powered }) {
                    print("heartd waits for an adapter that is off and never powers one itself: bluetoothctl power on "
                          + "(rfkill unblock bluetooth when blocked); bluetoothd powers adapters at start with AutoEnable=true")
                }
            }
        }
    }
}

extension Status {
    /// The POWERED cell: `yes`, or `no` with how long and why (`rfkill` for BlueZ's `off-blocked`).
    static func power(_ a: AdapterCaptureStatus, now: Date) -> String {
        guard !a.powered else { return "yes" }
        var why: [String] = []
        if a.powerState == .offBlocked { why.append("rfkill") }
        if let since = a.offSince { why.append("off \(Int(max(0, now.timeIntervalSince(since)).rounded())) s") }
        return why.isEmpty ? "no" : "no (\(why.joined(separator: ", ")))"
    }

    /// The subscription a sensor's connection uses — `acquire-notify`, or `start-notify` with why BlueZ refused
    /// AcquireNotify for it — and how many connections fell back in all.
    static func subscription(_ link: DeviceCaptureStatus?) -> String {
        guard let link, let mode = link.subscribeMode else { return "-" }
        var text = mode.rawValue
        if let reason = link.subscribeFallback { text += " (AcquireNotify refused: \(reason.rawValue))" }
        if link.subscribeFallbacks > 0 { text += ", \(link.subscribeFallbacks) fallback(s)" }
        return text
    }

    /// The active sessions with their statistics so far.
    static func sessionTable(_ sessions: [ActiveSessionStatus]) -> String {
        func number(_ v: Double?, _ digits: Int = 0) -> String { v.map { String(format: "%.\(digits)f", $0) } ?? "-" }
        var table = Table("SESSION", "LABEL", "ELAPSED", "BEATS", "BPM", "AVG BPM", "RMSSD ms", "DFA α1 (artifacts)", "DEVICES")
        for s in sessions {
            let t = Int(s.elapsedSeconds)
            let dfa = s.dfaAlpha1 ?? []
            let dfaText = dfa.isEmpty ? "-" : dfa.map { (dfa.count > 1 ? $0.device + " " : "") + Self.dfaCell($0) }.joined(separator: ", ")
            table.add([s.uuid.uuidString, s.label ?? "-", String(format: "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60),
                       String(s.beats), number(s.currentBPM), number(s.averageBPM, 1), number(s.rmssdMs, 1), dfaText,
                       s.devices.isEmpty ? "all" : s.devices.joined(separator: ",")])
        }
        return table.render()
    }

    /// A live DFA α1 reading in a table cell: `0.82 (1.2 %)`, `withheld (7.3 %)` or `too few RR`.
    static func dfaCell(_ r: WatchPayload.DFAAlpha1) -> String {
        let share = String(format: "%.1f %%", r.artifactPercent)
        switch r.state {
        case .measured: return r.alpha1.map { String(format: "%.2f", $0) + " (\(share))" } ?? "-"
        case .withheldArtifacts: return "withheld (\(share))"
        case .tooFewIntervals: return "too few RR"
        }
    }
}

struct Devices: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Devices heartd has stored data from.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await runReporting {
            let transport = try global.transport()
            if global.json { return printJSON(try await transport.json(DevicesCall.self, NoParams())) }
            print(Self.text(try await transport.call(DevicesCall.self, NoParams())))
        }
    }

    /// The stored devices as a table, or "no devices".
    static func text(_ r: DevicesCall.Result) -> String {
        var table = Table("ADDRESS", "NAME", "MANUFACTURER", "MODEL", "FIRMWARE", "LAST SEEN")
        for d in r.devices {
            let i = d.info
            table.add([d.address ?? "-", i.name ?? "-", i.manufacturer ?? "-", i.model ?? "-", i.firmwareVersion ?? "-",
                       ExportDates.iso(d.lastSeen)])
        }
        return table.rows.isEmpty ? "no devices" : table.render()
    }
}

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow heart rate, beats and connections live, or the store's changes (--changes); Ctrl-C stops.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Only this device.") var device: String?
    @Option(help: "Only the devices of this active session; ends when it stops.") var session: String?
    @Flag(help: "Also print every beat.") var beats = false
    @Flag(help: "The samples and sessions added and deleted as they are saved, each with its anchor (subscribe).")
    var changes = false
    @Option(help: "With --changes: start after this anchor (the last one handled; 0 = everything; default now).")
    var since: Int?

    func validate() throws {
        if since != nil && !changes { throw ValidationError("--since goes with --changes") }
        if changes && (device != nil || session != nil || beats) {
            throw ValidationError("--changes lists every change; --device, --session and --beats are for live events")
        }
    }

    func run() async throws {
        try await runReporting {
            if changes { return try await ChangeStream(global: global, since: since).run() }
            let params = WatchCall.Params(device: device?.uppercased(), session: session)
            for try await event in try await global.transport().stream(WatchCall.self, params) {
                if global.json {
                    var o = event.fields
                    o["event"] = .string(event.name)
                    printJSON(.object(o))
                    if event.name == WatchEvent.sessionEnded.rawValue { return }
                    continue
                }
                guard let message = try WatchMessage(knownEvent: event) else { continue }  // a newer daemon's event
                print(Self.line(message, beats: beats), terminator: "")
                if case .sessionEnded = message {
                    fflush(nil)
                    return  // the daemon ended the stream; the connection stays open for requests
                }
                fflush(nil)
            }
        }
    }
}

extension Watch {
    /// The lines one event prints (none for beats without `--beats`), each ending in a newline.
    static func line(_ message: WatchMessage, beats: Bool) -> String {
        func t(_ d: Date?) -> String { d.map(ExportDates.iso) ?? "" }
        switch message {
        case .heartRate(let p): return "\(t(p.at))  \(p.device)  \(p.bpm) bpm\n"
        case .beats(let p):
            guard beats else { return "" }
            return p.beats.map { "\(t($0.time))  \(p.device)  beat\($0.gap ? " (after a gap)" : "")\n" }.joined()
        case .connected(let p): return "\(t(p.at))  \(p.device)  connected \(p.info?.name ?? "")\n"
        case .disconnected(let p): return "\(t(p.at))  \(p.device)  disconnected (\(p.reason))\n"
        case .battery(let p): return "\(t(p.at))  \(p.device)  battery \(p.percent)%\n"
        case .contact(let p): return "\(t(p.at))  \(p.device)  \(p.detected ? "contact" : "NO CONTACT")\n"
        case .seriesFinished(let p): return "series finished: \(p.uuid.uuidString) \(p.type) (\(p.reason.rawValue))\n"
        case .sessionStarted(let p): return "\(t(p.session.start))  session \(p.session.uuid.uuidString) started \(p.session.label ?? "")\n"
        case .sessionStopped(let p): return "\(t(p.session.end))  session \(p.session.uuid.uuidString) stopped\n"
        case .sessionEnded(let p): return "\(t(p.end))  session \(p.session.uuidString) ended\n"
        case .dfaAlpha1(let p):
            let share = String(format: "%.1f %%", p.artifactPercent)
            let text = switch p.state {
            case .measured: "DFA α1 \(p.alpha1.map { String(format: "%.2f", $0) } ?? "-") (artifacts \(share))"
            case .withheldArtifacts: "DFA α1 withheld: artifacts \(share) > \(Int(LiveDFAAlpha1.artifactThresholdPercent)) %"
            case .tooFewIntervals: "DFA α1 -: too few RR intervals (\(p.intervals))"
            }
            return "\(t(p.at))  \(p.device)  \(text)\(p.windowFull ? "" : " (window filling)")\n"
        case .peopleChanged(let p): return "\(t(p.at))  people changed\n"
        }
    }
}

struct Allow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start capturing a device (needs the admin group).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Bluetooth address, AA:BB:CC:DD:EE:FF.") var address: String

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().call(AllowCall.self, AddressParams(address: address))
            global.json ? printJSON(JSONBridge.value(r)) : print("allowed \(r.allowed)")
        }
    }
}

struct Forget: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop capturing a device; its stored data is kept (needs the admin group).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "Bluetooth address, AA:BB:CC:DD:EE:FF.") var address: String

    func run() async throws {
        try await runReporting {
            let r = try await global.transport().call(ForgetCall.self, AddressParams(address: address))
            global.json ? printJSON(JSONBridge.value(r)) : print("forgot \(r.forgotten)")
        }
    }
}
