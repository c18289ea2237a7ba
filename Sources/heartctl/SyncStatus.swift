import Foundation
import Sync

/// Where `heartctl status` finds the `heartd-sync` part: the sync process's state file (it is a separate
/// process in a separate unit; docs/CENTRAL.md "Status"). What it shows is `SyncStatusReport`.
enum SyncStatus {
    static let defaultPath = "/var/lib/heartd-sync/state.json"

    static func path(_ option: String?) -> String {
        option ?? ProcessInfo.processInfo.environment["HEARTD_SYNC_STATE"] ?? defaultPath
    }

    /// Nil when there is no state file (sync not set up).
    static func read(_ path: String, now: Date = Date()) -> SyncStatusReport? {
        guard FileManager.default.fileExists(atPath: path), let state = try? SyncState.read(from: path) else { return nil }
        return SyncStatusReport(state, now: now)
    }
}
