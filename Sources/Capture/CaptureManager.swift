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

    // Internal rather than private where CaptureManager+Sessions.swift (the reconcile) reads or changes them.
    var mirror = ObjectMirror()
    var bluezOwner: String?
    private var sawOwner = false
    var sessions: [String: SessionHandle] = [:]  // device path → session
    var ending: [Int: (address: String, task: Task<Void, Never>)] = [:]  // stopped sessions still tearing down
    var nextSessionID = 0
    var discoveryOn: [String: Bool] = [:]  // adapter path → we started discovery
    var discoveryRetryAt: [String: Double] = [:]
    /// `nearby` scans running: every powered adapter discovers while there is one.
    var scans = 0
    /// The run loop's input, and one-shot ticks for discovery retries: no periodic tick (a wake-up costs).
    var input: AsyncStream<Input>.Continuation?
    var retryTicks: [String: Task<Void, Never>] = [:]
    var alarms: SessionAlarms?
    /// The thread that reads the AcquireNotify sockets, for `run()`'s duration.
    var poller: AcquiredNotifyPoller?
    var load: AdapterLoad
    /// Allowed adapters present but not powered: one notice each after `policy.adapterOffNotice`.
    var power: AdapterPowerWatch

    init(connection: DBusConnection, policy: CapturePolicy, logger: Logger, router: NotifyRouter, board: StatusBoard) {
        self.connection = connection
        self.policy = policy
        self.logger = logger
        self.router = router
        self.board = board
        load = AdapterLoad(policy: policy)
        power = AdapterPowerWatch(delay: policy.adapterOffNotice)
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
        let poller = AcquiredNotifyPoller()
        self.poller = poller
        poller.start()
        defer { poller.stop() }
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

    // MARK: - mirror

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
}
