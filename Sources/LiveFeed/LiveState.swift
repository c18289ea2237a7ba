import Foundation
import HealthModel
import HeartQueries
import Posix

/// The live picture as a value: heartd's status and `watch` events go in, `LiveUpdate`s come out. Pure (the
/// caller passes the time), so every rule is tested without a socket.
struct LiveState: Sendable {
    let settings: LiveFeedSettings
    private(set) var reachable = false
    private(set) var status: DaemonStatus?
    private(set) var sessions: [ActiveSessionStatus] = []
    private var devices: [String: Entry] = [:]
    /// A session started or stopped, or a device disconnected: the next status (the active sessions' figures, the
    /// devices heartd still lists) is due now.
    private(set) var statusDue = false
    /// `lost` was reported and heartd has not answered since: retries say nothing more.
    private var lostReported = false
    /// Devices changed without a `device` update yet: a notification's beats (its RMSSD) wait for its heart rate,
    /// which heartd sends right after them (Ingest's order: contact, beats, heart rate), so a notification makes one
    /// `device` update, not two. A notification without a heart rate (no contact) is reported at the next tick.
    private var unreported: Set<String> = []

    struct Entry: Sendable {
        var device: LiveDevice
        var rmssd: RollingRMSSD
    }

    init(settings: LiveFeedSettings) {
        self.settings = settings
    }

    var snapshot: LiveSnapshot {
        LiveSnapshot(daemonReachable: reachable, devices: devices.keys.sorted().compactMap { devices[$0]?.device },
                     activeSessions: sessions, status: status)
    }

    /// A status answered (on connecting, and every `statusInterval`).
    mutating func apply(status new: DaemonStatus, now: Date) -> [LiveUpdate] {
        var updates: [LiveUpdate] = reachable ? [] : [.daemon(reachable: true, reason: nil)]
        reachable = true
        lostReported = false
        // A device the last status's devices or allow-list named and this one does not (`forget` takes it off the
        // allow-list): reported once more, unchanged, so that subscribers that infer "forgotten" from the status
        // (heartd-mqtt removes it from Home Assistant) see it now.
        let dropped = Self.addresses(status?.devices.map(\.address)).subtracting(Self.addresses(new.devices.map(\.address)))
            .union(Self.addresses(status?.capture.allowList).subtracting(Self.addresses(new.capture.allowList)))
        for address in dropped.sorted() {
            if let entry = devices[address] { updates.append(.device(entry.device)) }
        }
        status = new
        statusDue = false
        for d in new.devices {
            let address = d.address.uppercased()
            update(address, now: now, into: &updates) { device in
                device.connected = d.connected
                device.info = d.device ?? device.info
                device.bpm = d.connected ? d.currentBPM : nil
                device.contact = d.connected ? d.contact : nil
                device.batteryPercent = d.batteryPercent ?? device.batteryPercent
                device.lastNotification = [device.lastNotification, d.lastNotification].compactMap { $0 }.max()
                device.person = d.person
            }
        }
        if new.sessions != sessions {
            sessions = new.sessions
            updates.append(.sessions(sessions))
        }
        return updates
    }

    /// One `watch` event.
    mutating func apply(_ message: WatchMessage, now: Date) -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        switch message {
        case .connected(let p):
            update(p.device, now: now, into: &updates) {
                $0.connected = true
                $0.info = p.info ?? $0.info
                $0.lastNotification = p.at
            }
        case .disconnected(let p):
            // A disconnect may be `forget`: the status (due now) says whether heartd still lists the device.
            statusDue = true
            devices[p.device.uppercased()]?.rmssd.breakChain()
            update(p.device, now: now, into: &updates) {
                $0.connected = false
                $0.bpm = nil
                $0.contact = nil
            }
        case .heartRate(let p):
            update(p.device, now: now, into: &updates) {
                $0.connected = true
                $0.bpm = p.bpm
                $0.lastNotification = max(p.at, $0.lastNotification ?? p.at)
            }
        case .beats(let p):
            let address = p.device.uppercased()
            var rmssd = devices[address]?.rmssd ?? RollingRMSSD(window: settings.rmssdWindow.seconds)
            for b in p.beats { rmssd.add(beat: b.time, gap: b.gap) }
            let value = rmssd.rmssdMs(at: p.beats.last?.time ?? now)
            updates.append(.beats(address: address, beats: p.beats))
            update(address, now: now, into: &updates, report: false) { $0.rmssdMs = value; $0.connected = true }
            devices[address]?.rmssd = rmssd
        case .battery(let p):
            update(p.device, now: now, into: &updates) { $0.batteryPercent = p.percent }
        case .contact(let p):
            update(p.device, now: now, into: &updates) {
                $0.contact = p.detected
                if !p.detected { $0.bpm = nil }
                $0.lastNotification = max(p.at, $0.lastNotification ?? p.at)
            }
        case .dfaAlpha1(let p):
            update(p.device, now: now, into: &updates) {
                $0.dfaAlpha1 = p.alpha1
                $0.dfaArtifactPercent = p.artifactPercent
            }
        case .sessionStarted, .sessionStopped, .peopleChanged:
            statusDue = true
        case .seriesFinished, .sessionEnded:
            break
        }
        return updates
    }

    /// The clock moved on: a connected device silent for `silenceAfter` becomes `no-signal`.
    mutating func tick(now: Date) -> [LiveUpdate] {
        var updates: [LiveUpdate] = []
        for address in devices.keys.sorted() { update(address, now: now, into: &updates) { _ in } }
        return updates
    }

    /// The control socket stopped answering: every device is shown disconnected until heartd answers again.
    mutating func lost(reason: String, now: Date) -> [LiveUpdate] {
        guard !lostReported else { return [] }
        var updates: [LiveUpdate] = [.daemon(reachable: false, reason: reason)]
        reachable = false
        lostReported = true
        for address in devices.keys.sorted() {
            devices[address]?.rmssd.breakChain()
            update(address, now: now, into: &updates) {
                $0.connected = false
                $0.bpm = nil
                $0.contact = nil
            }
        }
        return updates
    }

    private static func addresses(_ list: [String]?) -> Set<String> { Set((list ?? []).map { $0.uppercased() }) }

    /// Applies `change` to the device (created on first sight), derives its state, and reports it if it (or an
    /// earlier unreported change) changed it; with `report: false` a change waits for the next report.
    private mutating func update(_ address: String, now: Date, into updates: inout [LiveUpdate], report: Bool = true,
                                 _ change: (inout LiveDevice) -> Void) {
        let address = address.uppercased()
        var entry = devices[address]
            ?? Entry(device: LiveDevice(address: address), rmssd: RollingRMSSD(window: settings.rmssdWindow.seconds))
        let before = entry.device
        change(&entry.device)
        entry.device.state = state(of: entry.device, now: now)
        if entry.device.state == .noSignal { entry.device.bpm = nil }
        if entry.device.state == .noSignal || entry.device.state == .disconnected {
            entry.device.dfaAlpha1 = nil
            entry.device.dfaArtifactPercent = nil
        }
        devices[address] = entry
        let changed = entry.device != before || devices.count == 0
        if !report {
            if changed { unreported.insert(address) }
        } else if unreported.remove(address) != nil || changed {
            updates.append(.device(entry.device))
        }
    }

    /// Contact lost wins over silence: a strap off the skin often keeps sending, saying so.
    private func state(of device: LiveDevice, now: Date) -> LiveDeviceState {
        guard device.connected else { return .disconnected }
        if device.contact == false { return .noContact }
        if let last = device.lastNotification, now.timeIntervalSince(last) >= settings.silenceAfter.seconds {
            return .noSignal
        }
        return .streaming
    }
}
