import Foundation
import HealthModel
import HeartQueries
import Ingest
import Synchronization

/// Live DFA α1 of every streaming device (`HealthModel.LiveDFAAlpha1`: a rolling 2-minute window, an update every
/// 5 s of beat time, α1 withheld above 5 % corrected intervals), fed the pipeline's live events.
///
/// Every beat goes into its device's window (O(1)); the reading itself — artifact correction and DFA over the
/// window, about 0.1 ms — is computed only when somebody can see it: a `watch` client is subscribed (the network
/// services always are) or an active session covers the device (`status.sessions`). So a daemon that only records
/// spends nothing on it. No RR interval spans a gap, a disconnect or two series.
final class LiveDFAMonitor: Sendable {
    private struct Device: Sendable {
        var model = LiveDFAAlpha1()
        /// Beat times are offsets from the device's first beat, on the 1/1024 s grid.
        var anchor: Date?
        /// The next beat starts a new segment (the device disconnected or its series ended).
        var breakPending = false
        var latest: WatchPayload.DFAAlpha1?
    }

    private let devices = Mutex<[String: Device]>([:])

    /// Feeds a live event; returns the reading to send when an update is due and `wanted(device)` says somebody
    /// will see it. Called on the pipeline: cheap except on an update.
    func observe(_ event: LiveEvent, wanted: (String) -> Bool) -> WatchPayload.DFAAlpha1? {
        switch event {
        case .beats(let address, let beats):
            let due: Date? = devices.withLock { devices in
                var device = devices[address, default: Device()]
                defer { devices[address] = device }
                // The reading covers the whole notification, so it is stamped with its last beat.
                var due = false
                for beat in beats {
                    let anchor = device.anchor ?? beat.time
                    device.anchor = anchor
                    let offset = (beat.time.timeIntervalSince(anchor) * 1024).rounded() / 1024
                    let gap = beat.precededByGap || device.breakPending
                    device.breakPending = false
                    if device.model.add(Beat(offset: offset, precededByGap: gap)) { due = true }
                }
                return due ? beats.last?.time : nil
            }
            // Asked outside the lock: `wanted` takes the hub's and the sessions' locks.
            guard let due, wanted(address) else { return nil }
            return devices.withLock { devices in
                guard let reading = devices[address]?.model.reading() else { return nil }
                let payload = WatchPayload.DFAAlpha1(device: address, at: due, reading: reading)
                devices[address]?.latest = payload
                return payload
            }
        case .disconnected(let address, _, _):
            devices.withLock {
                $0[address]?.breakPending = true
                $0[address]?.latest = nil
            }
        case .seriesFinished(let address, _, Sample.heartbeatSeriesIdentifier, _):
            devices.withLock { $0[address]?.breakPending = true }
        default:
            break
        }
        return nil
    }

    /// The latest reading of each device `session` covers, by address.
    func latest(for session: Session) -> [WatchPayload.DFAAlpha1] {
        devices.withLock { devices in
            devices.keys.sorted().filter { session.covers(device: $0) }.compactMap { devices[$0]?.latest }
        }
    }
}
