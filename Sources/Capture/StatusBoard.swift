import SourceEvents
import Synchronization

/// Shared registry behind `BlueZCapture.status()`.
final class StatusBoard: Sendable {
    private struct Board {
        var stats: [String: DeviceStats] = [:]  // address → stats (kept after the session ends)
        var restarts = 0
        var bluezUp = false
        var repairs = 0
        var inferred = 0
        var adapters: [AdapterCaptureStatus] = []
    }
    private let board = Mutex(Board())

    /// The stats of a device by address (one entry per sensor, whichever adapter captures it now).
    func stats(address: String, adapter: String) -> DeviceStats {
        board.withLock { b in
            if let s = b.stats[address] {
                s.update { $0.adapter = adapter }
                return s
            }
            let s = DeviceStats(address: address, adapter: adapter)
            b.stats[address] = s
            return s
        }
    }

    func setAdapters(_ adapters: [AdapterCaptureStatus]) {
        board.withLock { $0.adapters = adapters.sorted { $0.name < $1.name } }
    }

    func bluez(available: Bool, restarted: Bool = false) {
        board.withLock { b in
            b.bluezUp = available
            if restarted { b.restarts += 1 }
        }
    }

    func connectedInferred() { board.withLock { $0.inferred += 1 } }

    func mirrorRepaired() { board.withLock { $0.repairs += 1 } }

    var snapshot: CaptureStatus {
        let b = board.withLock { $0 }
        return CaptureStatus(bluezAvailable: b.bluezUp, bluetoothdRestarts: b.restarts, mirrorRepairs: b.repairs,
                             connectedInferred: b.inferred,
                             devices: b.stats.values.map(\.snapshot).sorted { ($0.address, $0.adapter) < ($1.address, $1.adapter) },
                             adapters: b.adapters)
    }
}
