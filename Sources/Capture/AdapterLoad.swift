import SourceEvents
import Posix

/// What the manager remembers about adapters between reconciles: connection-limit refusals and learned limits.
/// Kept apart from `CaptureManager` (one job: the bookkeeping behind `AdapterPlanner`).
struct AdapterLoad: Sendable {
    var planner: AdapterPlanner
    /// Address → adapter name → monotonic time until which that adapter is avoided for it.
    private var refusals: [String: [String: Double]] = [:]
    /// Adapter name → limit learned from a connection-limit answer (the connections it had then).
    private(set) var learned: [String: Int] = [:]

    init(policy: CapturePolicy) {
        planner = AdapterPlanner(pins: policy.pins, defaultLimit: max(1, policy.adapterConnectionLimit))
    }

    /// A connection-limit answer from `adapter` for `address` while `connected` devices were connected through it.
    /// Returns the back-off in seconds.
    mutating func refused(address: String, adapter: String, connected: Int, backoff: Double,
                          now: Double = MonotonicClock.now()) -> Double {
        refusals[address, default: [:]][adapter] = now + backoff
        if connected >= 1, connected < planner.limit(of: adapter) {
            learned[adapter] = connected
            planner.limits[adapter] = connected
        }
        return backoff
    }

    /// Refusals still in back-off (expired ones are dropped).
    mutating func activeRefusals(now: Double = MonotonicClock.now()) -> [String: Set<String>] {
        for (address, byAdapter) in refusals {
            let live = byAdapter.filter { $0.value > now }
            refusals[address] = live.isEmpty ? nil : live
        }
        return refusals.mapValues { Set($0.keys) }
    }

    /// The earliest time a refusal ends (a reconcile is due then), if any.
    var nextExpiry: Double? { refusals.values.flatMap(\.values).min() }

    /// The status line of each adapter.
    func status(adapters: [(name: String, powered: Bool)], assigned: [String: Int],
                connected: [String: Int]) -> [AdapterCaptureStatus] {
        adapters.map {
            AdapterCaptureStatus(name: $0.name, powered: $0.powered, assigned: assigned[$0.name] ?? 0,
                                 connected: connected[$0.name] ?? 0, limit: planner.limit(of: $0.name),
                                 limitLearned: learned[$0.name] != nil)
        }
    }
}
