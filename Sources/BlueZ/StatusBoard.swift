import Foundation

/// Shared, lock-protected registry behind `BlueZCapture.status()`.
final class StatusBoard: @unchecked Sendable {  // fields behind `lock`
    private let lock = NSLock()
    private var stats: [String: DeviceStats] = [:]  // device path → stats (kept after the session ends)
    private var restarts = 0
    private var bluezUp = false
    private var repairs = 0
    private var inferred = 0

    func stats(devicePath: String, address: String, adapter: String) -> DeviceStats {
        lock.lock(); defer { lock.unlock() }
        if let s = stats[devicePath] { return s }
        let s = DeviceStats(address: address, adapter: adapter)
        stats[devicePath] = s
        return s
    }

    func bluez(available: Bool, restarted: Bool = false) {
        lock.lock(); defer { lock.unlock() }
        bluezUp = available
        if restarted { restarts += 1 }
    }

    func connectedInferred() {
        lock.lock(); defer { lock.unlock() }
        inferred += 1
    }

    func mirrorRepaired() {
        lock.lock(); defer { lock.unlock() }
        repairs += 1
    }

    var snapshot: CaptureStatus {
        lock.lock()
        let all = stats.values
        let status = (bluezUp, restarts, repairs, inferred)
        lock.unlock()
        return CaptureStatus(bluezAvailable: status.0, bluetoothdRestarts: status.1, mirrorRepairs: status.2,
                             connectedInferred: status.3,
                             devices: all.map(\.snapshot).sorted { ($0.address, $0.adapter) < ($1.address, $1.adapter) })
    }
}
