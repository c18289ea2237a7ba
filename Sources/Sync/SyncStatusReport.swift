import Foundation

/// The sync part of `heartctl status` — the `sync` object of `--json` and the lines of the text form — as one type:
/// the `SyncState` the sync process wrote, with its fields at the top level, plus `lag_s` computed when read.
public struct SyncStatusReport: Codable, Sendable, Hashable {
    public var state: SyncState
    /// Seconds since the oldest undelivered change, to a tenth; 0 when caught up.
    public var lagSeconds: Double

    public init(_ state: SyncState, now: Date = Date()) {
        self.state = state
        lagSeconds = (state.lag(now: now) * 10).rounded() / 10
    }

    private enum CodingKeys: String, CodingKey {
        case lagSeconds = "lag_s"
    }

    public init(from decoder: any Decoder) throws {
        state = try SyncState(from: decoder)
        lagSeconds = try decoder.container(keyedBy: CodingKeys.self).decode(Double.self, forKey: .lagSeconds)
    }

    public func encode(to encoder: any Encoder) throws {
        try state.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lagSeconds, forKey: .lagSeconds)
    }

    /// One or two lines for the human-readable status.
    public func text(now: Date = Date()) -> String {
        let age = now.timeIntervalSince(state.updatedAt)
        var line = "sync: gateway \(state.gateway) → \(state.central), "
            + (lagSeconds == 0 ? "caught up" : String(format: "lag %.0f s (oldest undelivered change)", lagSeconds))
            + ", anchor \(state.deliveredAnchor)/\(state.storeAnchor)"
            + String(format: ", state %.0f s old", age)
        if let error = state.lastError {
            line += "\nsync error: \(error.code.rawValue): \(error.detail) (\(error.at.formatted(.iso8601)))"
        }
        return line
    }
}
