import BlueZ
import DBus
import Dispatch
import Foundation
import HeartRate
import Posix
import Logging
import SourceEvents
import LogFields

/// Owns the mirror of BlueZ's objects for one connection and decides which device sessions run.
///
/// Signals arrive in one ordered stream (one subscription for all rules). Heart-rate values of
/// subscribed characteristics never reach this actor: the `NotifyRouter` handles them on the D-Bus queue.
actor CaptureManager {
    enum Input: Sendable {
        case signal(DBusSignal)
        case tick
    }

    struct SessionHandle {
        let id: Int
        let address: String
        let adapterPath: String
        let inbox: AsyncStream<SessionSignal>.Continuation
        let task: Task<Void, Never>
    }

    let connection: DBusConnection
    private(set) var policy: CapturePolicy
    let logger: Logger
    let router: NotifyRouter
    let board: StatusBoard

    private var mirror = ObjectMirror()
    private var bluezOwner: String?
    private var sawOwner = false
    private var sessions: [String: SessionHandle] = [:]  // device path → session
    private var ending: [Int: (address: String, task: Task<Void, Never>)] = [:]  // stopped sessions still tearing down
    private var nextSessionID = 0
    private var discoveryOn: [String: Bool] = [:]  // adapter path → we started discovery
    private var discoveryRetryAt: [String: Double] = [:]
    /// The run loop's input, and one-shot ticks for discovery retries: no periodic tick (a wake-up costs).
    private var input: AsyncStream<Input>.Continuation?
    private var retryTicks: [String: Task<Void, Never>] = [:]
    private var alarms: SessionAlarms?
    private var load: AdapterLoad

    init(connection: DBusConnection, policy: CapturePolicy, logger: Logger, router: NotifyRouter, board: StatusBoard) {
        self.connection = connection
        self.policy = policy
        self.logger = logger
        self.router = router
        self.board = board
        load = AdapterLoad(policy: policy)
    }

    static let rules: [MatchRule] = [
        MatchRule(interface: BlueZ.objectManager, member: "InterfacesAdded", arg0Path: "/org/bluez/"),
        MatchRule(interface: BlueZ.objectManager, member: "InterfacesRemoved", arg0Path: "/org/bluez/"),
        MatchRule(pathNamespace: "/org/bluez", interface: BlueZ.properties, member: "PropertiesChanged"),
        NameOwnerChange.rule(for: BlueZ.service),
    ]

    /// Runs until the task is cancelled (or the bus connection ends), then stops every session.
    func run() async throws {
        let (inbox, input) = AsyncStream<Input>.makeStream()
        let alarms = try SessionAlarms()
        self.alarms = alarms
        defer { alarms.stop() }
        let token = connection.addSignalHandler(matching: Self.rules) { [router, logger] signal in
            if Self.fastPath(signal, router: router, logger: logger) { return }
            input.yield(.signal(signal))
        }
        self.input = input
        // Values of subscribed characteristics, read straight from the message on the D-Bus reader thread (the
        // signal at notification rate); any other shape goes through `fastPath` or the mirror.
        connection.setPropertyValueTap(PropertyValueTap(interface: BlueZ.gattCharacteristic, property: "Value") {
            [router] path, sender, bytes in
            guard let route = router.route(for: path, sender: sender) else { return false }
            router.deliver(route, bytes: bytes)
            return true
        })
        defer {
            self.input = nil
            retryTicks.values.forEach { $0.cancel() }
            connection.removeSignalHandler(token)
            connection.setPropertyValueTap(nil)
        }
        // Order as bleak: matches first, then the owner and the snapshot, so nothing falls in between.
        for rule in Self.rules { try await connection.addMatch(rule) }
        if let owner = try await connection.nameOwner(BlueZ.service) {
            await bluezAppeared(owner)
        } else {
            logger.warning("org.bluez has no owner; waiting for bluetoothd")
        }
        let disconnectWatch = Task { [connection] in
            await connection.waitUntilDisconnected()
            input.finish()
        }
        defer { disconnectWatch.cancel() }
        for await item in inbox {
            if Task.isCancelled { break }
            switch item {
            case .signal(let s): await handle(s)
            case .tick: await reconcile()
            }
        }
        await stopAll(reason: connection.isConnected ? .captureStopped : .busConnectionLost,
                      bluezAlive: connection.isConnected && bluezOwner != nil)
    }

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

    // MARK: - mirror

    /// `path`, `HEARTD_ADAPTER` when the object is an adapter or below one, `HEARTD_DEVICE` when a device or below.
    nonisolated static func pathFields(_ path: String) -> Logger.Metadata {
        var fields: Logger.Metadata = ["path": .string(path)]
        if let adapter = path.split(separator: "/").dropFirst(2).first, path.hasPrefix("/org/bluez/") {
            fields[LogField.adapter.key] = .string(String(adapter))
        }
        if let address = path.deviceAddress { fields[LogField.device.key] = .string(address) }
        return fields
    }

    private func handle(_ signal: DBusSignal) async {
        if let change = NameOwnerChange(signal) {
            guard change.name == BlueZ.service else { return }
            if change.oldOwner != nil, bluezOwner != nil { await bluezVanished() }
            if let owner = change.newOwner { await bluezAppeared(owner) }
            return
        }
        guard let owner = bluezOwner, signal.sender == owner else { return }
        let inferredBefore = mirror.connectedInferred
        guard let path = mirror.apply(signal) else {
            logger.debug("signal not applied to the mirror", metadata: Self.pathFields(signal.path).merging(["member": .string(signal.member)]) { $1 })
            return
        }
        logger.debug("mirror", metadata: Self.pathFields(path).merging(["t": .stringConvertible(MonotonicClock.now()),
                                          "member": .string(signal.member), "args": .string(signal.brief)]) { $1 })
        if mirror.connectedInferred != inferredBefore {
            board.connectedInferred()
            logger.info("ServicesResolved without a Connected signal from bluetoothd; taking the device as connected",
                        metadata: Self.pathFields(path))
        }
        let depth = path.split(separator: "/").count  // 3 = adapter, 4 = device
        for (devicePath, s) in sessions where path.isPath(under: devicePath) || path == s.adapterPath {
            s.inbox.yield(.changed)
        }
        if depth <= 4 { await reconcile() }
        if depth == 3, signal.member == "PropertiesChanged",
           mirror.properties(path, BlueZ.adapter)?["Discovering"]?.bool == false, discoveryOn[path] == true {
            discoveryOn[path] = false  // BlueZ ended it; reconcile starts it again if still wanted
            await reconcile()
        }
    }

    private func bluezAppeared(_ owner: String) async {
        let restarted = sawOwner
        sawOwner = true
        bluezOwner = owner
        router.setOwner(owner)
        logger.info("bluetoothd is on the bus", metadata: ["owner": .string(owner), "restart": .stringConvertible(restarted)])
        do {
            let reply = try await connection.call(destination: BlueZ.service, path: "/", interface: BlueZ.objectManager,
                                                  member: "GetManagedObjects", timeout: .seconds(10))
            if !mirror.load(reply) { logger.error("GetManagedObjects reply has an unexpected shape") }
        } catch {
            logger.error("GetManagedObjects failed", metadata: ["error": .string("\(error)")])
        }
        board.bluez(available: true, restarted: restarted)
        await reconcile()
    }

    /// Reloads the mirror from GetManagedObjects. A session calls it when a wait times out: if a signal was
    /// missed (seen once in the lab: services resolved in bluetoothd, never in our mirror), this recovers
    /// without dropping the link.
    func resync() async {
        guard bluezOwner != nil else { return }
        do {
            let reply = try await connection.call(destination: BlueZ.service, path: "/", interface: BlueZ.objectManager,
                                                  member: "GetManagedObjects", timeout: .seconds(10))
            let before = mirror
            if mirror.load(reply) {
                let diff = mirror.differences(from: before)
                if diff.isEmpty {
                    logger.debug("mirror reloaded from GetManagedObjects: no change")
                } else {
                    board.mirrorRepaired()
                    logger.warning("mirror reloaded from GetManagedObjects: it had missed changes", metadata: [
                        "changes": .stringConvertible(diff.count), "diff": .string(diff.prefix(12).joined(separator: "; "))])
                }
            } else {
                logger.error("GetManagedObjects reply has an unexpected shape")
            }
        } catch {
            logger.warning("GetManagedObjects failed", metadata: ["error": .string("\(error)")])
        }
    }

    private func bluezVanished() async {
        logger.warning("bluetoothd left the bus; dropping the mirror")
        bluezOwner = nil
        router.setOwner(nil)
        mirror.clear()
        discoveryOn = [:]
        board.bluez(available: false)
        await reconcile()
    }

    /// Snapshot of one device for its session. `active` is false once the session was told to stop
    /// (the stop order is then already in its inbox: the session must not act on the emptied mirror).
    func view(devicePath: String, session: Int) -> DeviceView {
        let active = sessions[devicePath]?.id == session
        guard let props = mirror.properties(devicePath, BlueZ.device) else {
            return DeviceView(active: active, exists: false, adapterPowered: false, connected: false,
                              servicesResolved: false, name: nil, appearance: nil, characteristics: [:])
        }
        let adapterPath = props["Adapter"]?.objectPath ?? parentPath(devicePath)
        return DeviceView(
            active: active,
            exists: true,
            adapterPowered: mirror.properties(adapterPath, BlueZ.adapter)?["Powered"]?.bool ?? false,
            connected: props["Connected"]?.bool ?? false,
            servicesResolved: props["ServicesResolved"]?.bool ?? false,
            name: props["Alias"]?.string ?? props["Name"]?.string,
            appearance: props["Appearance"]?.int.flatMap { UInt16(exactly: $0) },
            characteristics: mirror.characteristics(under: devicePath),
            serviceUUIDs: (props["UUIDs"]?.stringArray ?? []).map { $0.lowercased() })
    }

    private func parentPath(_ path: String) -> String {
        String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }

    // MARK: - sessions and discovery

    /// Replaces the allow-list (`heartctl allow` / `forget`): sessions for devices no longer wanted stop (and
    /// disconnect, per the policy), newly wanted ones start or are discovered.
    func setAllowList(_ allowList: Set<String>) async {
        policy.allowList = Set(allowList.map { $0.uppercased() })
        for (path, s) in sessions where !policy.normalizedAllowList.contains(s.address) && !policy.autoHeartRate {
            stopSession(path, reason: .notAllowed, bluezAlive: bluezOwner != nil,
                        disconnect: policy.disconnectOnStop && bluezOwner != nil)
        }
        await reconcile()
    }

    /// Starts and stops sessions so that each wanted device (by address) is captured through exactly one adapter,
    /// the one `AdapterPlanner` gives it.
    private func reconcile() async {
        let survey = AdapterSurvey(mirror: mirror, policy: policy)
        let powered = survey.powered
        var current: [String: String] = [:]
        for s in sessions.values { current[s.address] = s.adapterPath.lastPathComponent }
        let plan = load.planner.plan(candidates: survey.candidates, current: current, refused: load.activeRefusals(),
                                     struggling: load.activeStruggles())
        let wanted = survey.devices(for: plan)
        for (path, s) in sessions where wanted[path] == nil {
            let reason: DisconnectReason
            if bluezOwner == nil { reason = .bluetoothdExited }
            else if mirror.properties(s.adapterPath, BlueZ.adapter) == nil { reason = .adapterRemoved }
            else if !powered.contains(s.adapterPath) { reason = .adapterPoweredOff }
            else if mirror.properties(path, BlueZ.device) == nil { reason = .deviceRemoved }
            else if plan[s.address] != nil { reason = .adapterReassigned }
            else { reason = .notAllowed }
            let moving = reason == .adapterReassigned && bluezOwner != nil
            stopSession(path, reason: reason, bluezAlive: bluezOwner != nil, disconnect: moving && policy.disconnectOnStop)
        }
        for (path, w) in wanted where sessions[path] == nil {
            startSession(devicePath: path, address: w.address, adapterPath: w.adapter)
        }
        var assigned: [String: Int] = [:]
        for s in sessions.values { assigned[s.adapterPath.lastPathComponent, default: 0] += 1 }
        board.setAdapters(load.status(adapters: survey.allowed.map { ($0.name, powered.contains($0.path)) },
                                      assigned: assigned, connected: survey.connected))
        if let expiry = load.nextExpiry { scheduleTick("adapter-load", after: max(0.01, expiry - MonotonicClock.now())) }
        await updateDiscovery(powered: powered, seeking: seekingAdapters(survey, plan: plan))
    }

    /// Powered adapters that should look for a wanted device they do not see: one the plan could not place (every
    /// adapter that sees it is full or refused it) or one failing on every adapter that sees it (AdapterPlanner's
    /// rule 4). The plan can only use adapters that see a device, and an adapter stops discovering once every
    /// wanted device is seen somewhere (lab: hci1 heard both sensors first and hci2 stopped listening, so the one
    /// hci1 could not carry had nowhere to go). Only adapters with room look.
    private func seekingAdapters(_ survey: AdapterSurvey, plan: [String: String]) -> Set<String> {
        var assigned: [String: Int] = [:]
        for adapter in plan.values { assigned[adapter, default: 0] += 1 }
        let struggles = load.activeStruggles()
        var seeking: Set<String> = []
        for (address, seen) in survey.candidates where load.planner.pins[address] == nil {
            let struggled = struggles[address] ?? []
            guard plan[address] == nil || seen.isSubset(of: struggled) else { continue }
            for adapter in survey.powered {
                let name = adapter.lastPathComponent
                if seen.contains(name) || struggled.contains(name) { continue }
                if assigned[name, default: 0] < load.planner.limit(of: name) { seeking.insert(adapter) }
            }
        }
        return seeking
    }

    /// A session's Connect was answered with its adapter's connection limit (`AdapterFull`): the refusal and the
    /// limit are recorded (`AdapterLoad.refused`) and the plan redone, which may move the device. Returns the back-off.
    func connectionLimited(address: String, adapterPath: String) async -> Double {
        // The mirror may not show the newest link yet: the devices we gave the adapter (this one excepted) count too.
        let ours = sessions.values.filter { $0.adapterPath == adapterPath && $0.address != address }.count
        let links = max(AdapterSurvey(mirror: mirror, policy: policy).links(adapterPath), ours)
        let backoff = load.refused(address: address, adapter: adapterPath.lastPathComponent, connected: links,
                                   backoff: policy.connectionLimitBackoff)
        await reconcile()
        return backoff
    }

    /// A session's attempt failed before any notification (not a connection limit): the plan is redone with that
    /// adapter marked as struggling for the device for `seconds`, which moves it when another adapter sees it.
    func attemptFailed(address: String, adapterPath: String, for seconds: Double) async {
        load.struggled(address: address, adapter: adapterPath.lastPathComponent, for: seconds)
        await reconcile()
    }

    private func startSession(devicePath: String, address: String, adapterPath: String) {
        let stats = board.stats(address: address, adapter: adapterPath.lastPathComponent)
        let (stream, inbox) = AsyncStream<SessionSignal>.makeStream()
        var log = logger
        log[field: .device] = .string(address)
        log[field: .adapter] = .string(adapterPath.lastPathComponent)
        nextSessionID += 1
        let id = nextSessionID
        let session = DeviceCaptureSession(id: id, address: address, devicePath: devicePath, adapterPath: adapterPath,
                                    manager: self, connection: connection, policy: policy, logger: log,
                                    router: router, stats: stats, inbox: inbox, alarms: alarms!)
        // A device moving between adapters: its old session finishes (and says `disconnected`) before the new one
        // starts, so its events stay in order.
        let previous = ending.values.filter { $0.address == address }.map(\.task)
        let task = Task {
            for t in previous { await t.value }
            await session.run(stream)
            self.sessionFinished(id)
        }
        sessions[devicePath] = SessionHandle(id: id, address: address, adapterPath: adapterPath, inbox: inbox, task: task)
        log.info("device session started", metadata: ["path": .string(devicePath)])
    }

    private func stopSession(_ path: String, reason: DisconnectReason, bluezAlive: Bool, disconnect: Bool) {
        guard let s = sessions.removeValue(forKey: path) else { return }
        s.inbox.yield(.stop(reason: reason, bluezAlive: bluezAlive, disconnect: disconnect))
        ending[s.id] = (s.address, s.task)
    }

    private func sessionFinished(_ id: Int) {
        ending[id] = nil
    }

    private func stopAll(reason: DisconnectReason, bluezAlive: Bool) async {
        for path in Array(sessions.keys) {
            stopSession(path, reason: reason, bluezAlive: bluezAlive, disconnect: policy.disconnectOnStop && bluezAlive)
        }
        if bluezAlive {
            for (adapter, on) in discoveryOn where on { try? await Adapter(connection: connection, path: adapter).stopDiscovery() }
        }
        discoveryOn = [:]
        let tasks = ending.values.map(\.task)
        // A session may sit in a long call (Connect to a sensor out of range): cancel what is left
        // after a grace period; cancelled calls return at once and the session still reports its end.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(3))
            for t in tasks { t.cancel() }
        }
        for t in tasks { await t.value }
        watchdog.cancel()
    }

    /// One `.tick` (a reconcile) after `seconds`, replacing an earlier one for the same key.
    private func scheduleTick(_ key: String, after seconds: Double) {
        retryTicks[key]?.cancel()
        let input = self.input
        retryTicks[key] = Task {
            do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
            input?.yield(.tick)
        }
    }

    private func updateDiscovery(powered: Set<String>, seeking: Set<String>) async {
        guard policy.discovery, bluezOwner != nil else { return }
        let now = MonotonicClock.now()
        // A wanted device any powered adapter sees is not missing (each is captured through one adapter only).
        let present = Set(mirror.devices.filter { d in powered.contains { d.path.isPath(under: $0) } }
            .compactMap { $0.props["Address"]?.string?.uppercased() })
        let missing = !policy.normalizedAllowList.isSubset(of: present)
        for adapter in powered.sorted() {
            let active = sessions.values.contains { $0.adapterPath == adapter }
            let want = missing || seeking.contains(adapter) || (policy.autoHeartRate && !active)
            let on = discoveryOn[adapter] ?? false
            let handle = Adapter(connection: connection, path: adapter)
            if want && !on {
                if let retry = discoveryRetryAt[adapter], now < retry { continue }
                discoveryOn[adapter] = true
                do {
                    try await handle.setDiscoveryFilter(uuids: [GATTUUID.heartRateService.uuidString])
                    try await handle.startDiscovery()
                    logger.info("discovery started", metadata: [LogField.adapter.key: .string(adapter.lastPathComponent)])
                } catch let e as BlueZError where e.kind == .inProgress {
                    // already discovering for us
                } catch {
                    discoveryOn[adapter] = false
                    discoveryRetryAt[adapter] = now + 5
                    scheduleTick(adapter, after: 5)
                    logger.warning("StartDiscovery failed", metadata: [LogField.adapter.key: .string(adapter.lastPathComponent), "error": .string("\(error)")])
                }
            } else if !want && on {
                discoveryOn[adapter] = false
                try? await handle.stopDiscovery()
                logger.info("discovery stopped", metadata: [LogField.adapter.key: .string(adapter.lastPathComponent)])
            }
        }
        for (adapter, on) in discoveryOn where on && !powered.contains(adapter) { discoveryOn[adapter] = false }
    }
}
