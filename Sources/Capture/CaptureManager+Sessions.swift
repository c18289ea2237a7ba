import BlueZ
import HeartRate
import Logging
import LogFields
import Posix
import SourceEvents

/// Which device sessions run, on which adapter, and which adapters discover: the reconcile after every change of
/// the mirror, the policy or an adapter's load, and starting and stopping the sessions it decides on.
extension CaptureManager {
    /// Starts and stops sessions so that each wanted device (by address) is captured through exactly one adapter,
    /// the one `AdapterPlanner` gives it.
    func reconcile() async {
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
        watchAdapterPower(survey)
        board.setAdapters(load.status(survey, assigned: assigned, power: power))
        if let expiry = load.nextExpiry { scheduleTick("adapter-load", after: max(0.01, expiry - MonotonicClock.now())) }
        if let due = power.nextDeadline { scheduleTick("adapter-power", after: max(0.01, due - MonotonicClock.now())) }
        await updateDiscovery(powered: powered, seeking: load.seekingAdapters(survey, plan: plan))
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
                                    router: router, stats: stats, inbox: inbox, alarms: alarms!,
                                    poller: poller!)
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

    func stopSession(_ path: String, reason: DisconnectReason, bluezAlive: Bool, disconnect: Bool) {
        guard let s = sessions.removeValue(forKey: path) else { return }
        s.inbox.yield(.stop(reason: reason, bluezAlive: bluezAlive, disconnect: disconnect))
        ending[s.id] = (s.address, s.task)
    }

    private func sessionFinished(_ id: Int) {
        ending[id] = nil
    }

    func stopAll(reason: DisconnectReason, bluezAlive: Bool) async {
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
            let want = missing || seeking.contains(adapter) || (policy.autoHeartRate && !active) || scans > 0
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
