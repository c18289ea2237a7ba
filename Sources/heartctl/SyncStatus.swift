import Control
import Foundation
import Sync

/// The `heartd sync` part of `heartctl status`: read from the sync process's state file (it is a separate
/// process in a separate unit; docs/CENTRAL.md "Status").
enum SyncStatus {
    static let defaultPath = "/var/lib/heartd-sync/state.json"

    static func path(_ option: String?) -> String {
        option ?? ProcessInfo.processInfo.environment["HEARTD_SYNC_STATE"] ?? defaultPath
    }

    /// Nil when there is no state file (sync not set up).
    static func read(_ path: String) -> SyncState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return try? SyncState.read(from: path)
    }

    /// The state as JSON, with the lag computed now.
    static func json(_ state: SyncState, now: Date = Date()) -> JSONValue {
        let iso = { (date: Date) in JSONValue.string(date.formatted(.iso8601)) }
        return .object([
            "gateway": .string(state.gateway), "central": .string(state.central), "pid": .int(Int(state.pid)),
            "updatedAt": iso(state.updatedAt), "deliveredAnchor": .int(Int(state.deliveredAnchor)),
            "storeAnchor": .int(Int(state.storeAnchor)), "lag_s": .double((state.lag(now: now) * 10).rounded() / 10),
            "oldestUndelivered": state.oldestUndelivered.map(iso) ?? .null,
            "lastDelivery": state.lastDelivery.map(iso) ?? .null,
            "lastError": state.lastError.map { .object(["code": .string($0.code.rawValue), "detail": .string($0.detail), "at": iso($0.at)]) } ?? .null,
        ])
    }

    /// One or two lines for the human-readable status.
    static func text(_ state: SyncState, now: Date = Date()) -> String {
        let lag = state.lag(now: now)
        let age = now.timeIntervalSince(state.updatedAt)
        var line = "sync: gateway \(state.gateway) → \(state.central), "
            + (lag == 0 ? "caught up" : String(format: "lag %.0f s (oldest undelivered change)", lag))
            + ", anchor \(state.deliveredAnchor)/\(state.storeAnchor)"
            + String(format: ", state %.0f s old", age)
        if let error = state.lastError {
            line += "\nsync error: \(error.code.rawValue): \(error.detail) (\(error.at.formatted(.iso8601)))"
        }
        return line
    }
}
