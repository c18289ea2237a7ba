import Foundation
import HealthModel
import HeartQueries
import Ingest
import Testing
@testable import LiveFeed

/// The live picture's rules, without a socket: states, heart rate, contact, silence, RMSSD, heartd lost.
@Suite struct LiveStateTests {
    let address = "A0:9E:1A:00:00:01"
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func connected(_ state: inout LiveState) -> [LiveUpdate] {
        state.apply(.connected(.init(device: address, at: t0, info: DeviceInfo(name: "Polar H10"))), now: t0)
    }

    func device(_ updates: [LiveUpdate]) -> LiveDevice? {
        updates.compactMap { if case .device(let d) = $0 { d } else { nil } }.last
    }

    @Test func aConnectedDeviceStreamsItsHeartRate() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        #expect(device(connected(&state))?.state == .streaming)
        let u = state.apply(.heartRate(.init(device: address, at: t0.addingTimeInterval(1), bpm: 72)), now: t0.addingTimeInterval(1))
        #expect(device(u)?.bpm == 72)
        #expect(device(u)?.displayName == "Polar H10")
        #expect(state.snapshot.devices.map(\.address) == [address])
    }

    @Test func silenceBecomesNoSignalAfterTheSetting() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = connected(&state)
        _ = state.apply(.heartRate(.init(device: address, at: t0, bpm: 72)), now: t0)
        #expect(state.tick(now: t0.addingTimeInterval(4.9)).isEmpty)
        let u = state.tick(now: t0.addingTimeInterval(5))
        #expect(device(u)?.state == .noSignal)
        #expect(device(u)?.bpm == nil)
        let back = state.apply(.heartRate(.init(device: address, at: t0.addingTimeInterval(6), bpm: 70)), now: t0.addingTimeInterval(6))
        #expect(device(back)?.state == .streaming)
    }

    @Test func lostContactIsShownAndClearsTheHeartRate() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = connected(&state)
        _ = state.apply(.heartRate(.init(device: address, at: t0, bpm: 72)), now: t0)
        let u = state.apply(.contact(.init(device: address, at: t0.addingTimeInterval(1), detected: false)), now: t0.addingTimeInterval(1))
        #expect(device(u)?.state == .noContact)
        #expect(device(u)?.bpm == nil)
    }

    @Test func rmssdFollowsTheBeatsAndNeverSpansAGap() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = connected(&state)
        // RR alternating 800/840 ms: every successive difference is 40 ms.
        var t = t0, beats: [WatchBeat] = [WatchBeat(time: t, gap: true)]
        for i in 0..<10 {
            t = t.addingTimeInterval(i % 2 == 0 ? 0.8 : 0.84)
            beats.append(WatchBeat(time: t, gap: false))
        }
        _ = state.apply(.beats(.init(device: address, beats: beats)), now: t)
        let u = state.apply(.heartRate(.init(device: address, at: t, bpm: 73)), now: t)
        #expect(abs((device(u)?.rmssdMs ?? 0) - 40) < 1e-3)  // Date holds ~0.1 µs
        // After a gap, a 2000 ms interval is no RR interval: the value stays.
        let after = [WatchBeat(time: t.addingTimeInterval(2), gap: true), WatchBeat(time: t.addingTimeInterval(2.8), gap: false)]
        let v = state.apply(.beats(.init(device: address, beats: after)), now: t.addingTimeInterval(2.8))
        #expect(abs((state.snapshot.devices.first?.rmssdMs ?? 0) - 40) < 1e-3)  // Date holds ~0.1 µs
        #expect(v.contains(.beats(address: address, beats: after)))
    }

    /// Eleven beats from t0 + 1 s, RR alternating 800/840 ms (RMSSD 40 ms), and the last one's time.
    func alternatingBeats() -> ([WatchBeat], Date) {
        var t = t0.addingTimeInterval(1), beats = [WatchBeat(time: t, gap: true)]
        for i in 0..<10 {
            t = t.addingTimeInterval(i % 2 == 0 ? 0.8 : 0.84)
            beats.append(WatchBeat(time: t, gap: false))
        }
        return (beats, t)
    }

    /// heartd sends a notification's beats, then its heart rate: one `device` update for both (every screen and
    /// MQTT state topic got two before).
    @Test func oneNotificationMakesOneDeviceUpdate() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = connected(&state)
        let (beats, t2) = alternatingBeats()
        let u = state.apply(.beats(.init(device: address, beats: beats)), now: t2)
            + state.apply(.heartRate(.init(device: address, at: t2, bpm: 74)), now: t2)
        let devices = u.compactMap { if case .device(let d) = $0 { d } else { nil } }
        #expect(devices.count == 1)
        #expect(devices.first?.bpm == 74)
        #expect(abs((devices.first?.rmssdMs ?? 0) - 40) < 1e-3)
        #expect(u.contains(.beats(address: address, beats: beats)))
    }

    /// Beats with no heart rate after them (a strap without contact may still send RR) are reported at the next tick.
    @Test func beatsWithoutAHeartRateAreReportedAtTheNextTick() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = connected(&state)
        let (beats, t2) = alternatingBeats()
        #expect(device(state.apply(.beats(.init(device: address, beats: beats)), now: t2)) == nil)
        #expect(abs((device(state.tick(now: t2.addingTimeInterval(1)))?.rmssdMs ?? 0) - 40) < 1e-3)
        #expect(device(state.tick(now: t2.addingTimeInterval(1.5))) == nil)  // reported once
    }

    @Test func heartdLostShowsEveryDeviceDisconnectedOnce() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = connected(&state)
        let u = state.lost(reason: "closed", now: t0)
        #expect(u.first == .daemon(reachable: false, reason: "closed"))
        #expect(device(u)?.state == .disconnected)
        #expect(state.lost(reason: "closed", now: t0).isEmpty)
    }

    @Test func heartdAbsentFromTheStartIsReportedOnce() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        #expect(state.lost(reason: "no such file", now: t0) == [.daemon(reachable: false, reason: "no such file")])
        #expect(state.lost(reason: "no such file", now: t0).isEmpty)
    }

    @Test func aSessionEventAsksForTheStatus() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        let session = Session(uuid: UUID(), label: "class", start: t0)
        #expect(state.apply(.sessionStarted(.init(session: session)), now: t0).isEmpty)
        #expect(state.statusDue)
    }

    @Test func dfaAlpha1IsShownWhileStreamingAndClearedWhenTheDeviceGoesSilentOrAway() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = connected(&state)
        _ = state.apply(.heartRate(.init(device: address, at: t0, bpm: 140)), now: t0)
        let reading = WatchPayload.DFAAlpha1(device: address, at: t0, alpha1: 0.81, state: .measured, intervals: 250,
                                             artifactPercent: 0.4, windowFull: true)
        let u = state.apply(.dfaAlpha1(reading), now: t0)
        #expect(device(u)?.dfaAlpha1 == 0.81 && device(u)?.dfaArtifactPercent == 0.4)
        // Silent for 5 s: no stale α1.
        #expect(device(state.tick(now: t0.addingTimeInterval(5)))?.dfaAlpha1 == nil)
        _ = state.apply(.dfaAlpha1(reading), now: t0.addingTimeInterval(5.5))
        _ = state.apply(.heartRate(.init(device: address, at: t0.addingTimeInterval(6), bpm: 140)), now: t0.addingTimeInterval(6))
        _ = state.apply(.dfaAlpha1(reading), now: t0.addingTimeInterval(6))
        #expect(state.snapshot.devices.first?.dfaAlpha1 == 0.81)
        let gone = state.apply(.disconnected(.init(device: address, at: t0.addingTimeInterval(7), reason: "link-lost")),
                               now: t0.addingTimeInterval(7))
        #expect(device(gone)?.dfaAlpha1 == nil && device(gone)?.dfaArtifactPercent == nil)
    }

    func status(_ addresses: [String], allowList: [String]? = nil) -> DaemonStatus {
        DaemonStatus(version: "test", protocolVersion: "1", pid: 1, mode: .bluez, started: t0, uptimeSeconds: 1,
                     capture: CaptureReport(source: .bluez, allowList: allowList),
                     devices: addresses.map {
                         DeviceStatus(address: $0, connected: false, device: nil, lastNotification: nil, currentBPM: nil,
                                      batteryPercent: nil, beatsInOpenSeries: 0, seriesFinished: 0, counters: IngestCounters())
                     },
                     store: StoreReport(path: nil, sizeBytes: 0, sink: SinkStatus()), watchers: 1)
    }

    /// `forget`: the device disconnects (a status is due at once), and the next status no longer has it on the
    /// allow-list (its `devices` keep it: the pipeline keeps every device it saw): the device is reported again, so
    /// that a subscriber inferring "forgotten" from the status (heartd-mqtt) learns it then. So is a device the
    /// status's devices drop.
    @Test func aDeviceTheStatusNoLongerListsIsReportedAgain() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = state.apply(status: status([address], allowList: [address]), now: t0)
        _ = connected(&state)
        _ = state.apply(.disconnected(.init(device: address, at: t0.addingTimeInterval(1), reason: "forgotten")), now: t0.addingTimeInterval(1))
        #expect(state.statusDue)
        #expect(state.apply(status: status([address], allowList: [address]), now: t0.addingTimeInterval(2)).isEmpty)
        #expect(!state.statusDue)
        let forgotten = state.apply(status: status([address], allowList: []), now: t0.addingTimeInterval(3))
        #expect(device(forgotten)?.address == address && device(forgotten)?.connected == false)
        #expect(state.apply(status: status([address], allowList: []), now: t0.addingTimeInterval(4)).isEmpty)
        let gone = state.apply(status: status([]), now: t0.addingTimeInterval(5))
        #expect(device(gone)?.address == address)
    }

    @Test func aPeopleEventAsksForTheStatusWhichNamesTheWearer() {
        var state = LiveState(settings: LiveFeedSettings(socketPath: "/x"))
        _ = connected(&state)
        #expect(state.apply(.peopleChanged(.init(at: t0)), now: t0).isEmpty)
        #expect(state.statusDue)
        let ana = Person(name: "Ana", age: 40, strap: address)
        let status = DaemonStatus(
            version: "1", protocolVersion: "heartd-control/1", pid: 1, mode: .bluez, started: t0, uptimeSeconds: 1,
            capture: CaptureReport(source: .bluez),
            devices: [DeviceStatus(address: address, connected: true, device: DeviceInfo(name: "Polar H10"), lastNotification: t0,
                                   currentBPM: 72, batteryPercent: nil, beatsInOpenSeries: 0, seriesFinished: 0,
                                   counters: IngestCounters(), person: ana)],
            store: StoreReport(path: "/x", sizeBytes: 0, sink: SinkStatus()), watchers: 0)
        let named = device(state.apply(status: status, now: t0))
        #expect(named?.person == ana && named?.displayName == "Ana" && named?.personHeartRateMaximum == 180)
        #expect(!state.statusDue)
        var released = status
        released.devices[0].person = nil
        #expect(device(state.apply(status: released, now: t0))?.displayName == "Polar H10")
    }
}
