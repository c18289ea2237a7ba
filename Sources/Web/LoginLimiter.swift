import Foundation
import Synchronization

/// Failed logins per peer address in a sliding minute: past `perMinute`, the address gets 429 until the oldest
/// failure is a minute old. Bounded: at most `maxAddresses` addresses are remembered.
public final class LoginLimiter: Sendable {
    public let perMinute: Int
    private let failures = Mutex<[String: [Date]]>([:])
    private let maxAddresses = 4096

    public init(perMinute: Int) { self.perMinute = perMinute }

    /// Whether `address` may try now.
    public func allows(_ address: String, now: Date = Date()) -> Bool {
        failures.withLock { failures in
            let recent = (failures[address] ?? []).filter { now.timeIntervalSince($0) < 60 }
            failures[address] = recent.isEmpty ? nil : recent
            return recent.count < perMinute
        }
    }

    public func recordFailure(_ address: String, now: Date = Date()) {
        failures.withLock { failures in
            if failures.count >= maxAddresses, failures[address] == nil {
                failures = failures.filter { $0.value.contains { now.timeIntervalSince($0) < 60 } }
                if failures.count >= maxAddresses, let any = failures.keys.first { failures.removeValue(forKey: any) }
            }
            failures[address, default: []].append(now)
        }
    }

    public func recordSuccess(_ address: String) {
        _ = failures.withLock { $0.removeValue(forKey: address) }
    }
}
