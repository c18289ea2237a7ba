import SourceEvents
import Posix

/// What the manager remembers about adapters between reconciles: connection-limit refusals, adapters a device's
/// attempts failed on (struggles) and learned limits.
/// Kept apart from `CaptureManager` (one job: the bookkeeping behind `AdapterPlanner`).
struct AdapterLoad: Sendable {
    var planner: AdapterPlanner
    /// Address → adapter name → monotonic time until which that adapter is avoided for it.
    private var refusals: [String: [String: Double]] = [:]
    /// Address → adapter name → monotonic time until which an attempt that failed there (no notification) counts.
    private var struggles: [String: [String: Double]] = [:]
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

    /// An attempt of `address` through `adapter` failed before any notification; it counts for `seconds`.
    mutating func struggled(address: String, adapter: String, for seconds: Double, now: Double = MonotonicClock.now()) {
        struggles[address, default: [:]][adapter] = now + seconds
    }

    /// Refusals still in back-off (expired ones are dropped).
    mutating func activeRefusals(now: Double = MonotonicClock.now()) -> [String: Set<String>] {
        Self.live(&refusals, now: now)
    }

    /// Struggles still counting (expired ones are dropped).
    mutating func activeStruggles(now: Double = MonotonicClock.now()) -> [String: Set<String>] {
        Self.live(&struggles, now: now)
    }

    private static func live(_ table: inout [String: [String: Double]], now: Double) -> [String: Set<String>] {
        for (address, byAdapter) in table {
            let live = byAdapter.filter { $0.value > now }
            table[address] = live.isEmpty ? nil : live
        }
        return table.mapValues { Set($0.keys) }
    }

    /// The earliest time a refusal or struggle ends (a reconcile is due then), if any.
    var nextExpiry: Double? { (refusals.values.flatMap(\.values) + struggles.values.flatMap(\.values)).min() }

    /// The status line of each adapter (`power` adds what `AdapterPowerWatch` knows of an adapter that is off).
    func status(_ survey: AdapterSurvey, assigned: [String: Int], power: AdapterPowerWatch) -> [AdapterCaptureStatus] {
        survey.allowed.map {
            AdapterCaptureStatus(name: $0.name, powered: survey.powered.contains($0.path),
                                 assigned: assigned[$0.name] ?? 0, connected: survey.connected[$0.name] ?? 0,
                                 limit: planner.limit(of: $0.name), limitLearned: learned[$0.name] != nil,
                                 powerState: survey.powerStates[$0.path], offSince: power.offSince($0.name))
        }
    }

    /// Powered adapters that should look for a wanted device they do not see: one the plan could not place (every
    /// adapter that sees it is full or refused it) or one failing on every adapter that sees it (AdapterPlanner's
    /// rule 4). The plan can only use adapters that see a device, and an adapter stops discovering once every
    /// wanted device is seen somewhere (lab: hci1 heard both sensors first and hci2 stopped listening, so the one
    /// hci1 could not carry had nowhere to go). Only adapters with room look.
    mutating func seekingAdapters(_ survey: AdapterSurvey, plan: [String: String]) -> Set<String> {
        var assigned: [String: Int] = [:]
        for adapter in plan.values { assigned[adapter, default: 0] += 1 }
        let struggles = activeStruggles()
        var seeking: Set<String> = []
        for (address, seen) in survey.candidates where planner.pins[address] == nil {
            let struggled = struggles[address] ?? []
            guard plan[address] == nil || seen.isSubset(of: struggled) else { continue }
            for adapter in survey.powered {
                let name = adapter.lastPathComponent
                if seen.contains(name) || struggled.contains(name) { continue }
                if assigned[name, default: 0] < planner.limit(of: name) { seeking.insert(adapter) }
            }
        }
        return seeking
    }
}
