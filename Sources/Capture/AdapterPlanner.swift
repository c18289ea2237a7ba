/// Decides which adapter captures each wanted device: a device is captured through exactly one adapter at a time.
///
/// A device's identity is its address: `/org/bluez/hci0/dev_X` and `/org/bluez/hci1/dev_X` are the same sensor.
/// Rules, in order:
/// 1. a device pinned to an adapter (`bluetooth.pin`) goes there or nowhere;
/// 2. a device keeps the adapter it has while that adapter still sees it (nothing is torn down to rebalance);
/// 3. otherwise it goes to the least loaded adapter that sees it (devices assigned to it), skipping adapters that are
///    full (assigned = limit) or that refused it with a connection-limit answer within the limit back-off; ties go
///    to the lower adapter name, so the plan is deterministic. With no such adapter it waits unassigned (the next
///    reconcile — an adapter back, a device gone, a refusal expired — places it); a device that has a session on
///    an adapter that refused it keeps it when no other adapter sees it (the session retries after the back-off);
/// 4. a device whose attempts on its adapter keep failing without a notification (`struggling`: a Connect error, a
///    ServicesResolved timeout — e.g. a controller that carries one link per central) is placed again by rule 3,
///    preferring adapters it has not struggled on; with none of those it stays (or goes) where it can.
/// Pure: tested without a bus (`AdapterPlannerTests`).
struct AdapterPlanner: Sendable {
    /// Address (upper case) → adapter name (`hci1`).
    var pins: [String: String] = [:]
    /// Adapter name → most devices it is given (its LE connection limit).
    var limits: [String: Int] = [:]
    /// Used for adapters without an entry in `limits`.
    var defaultLimit = 5

    func limit(of adapter: String) -> Int { limits[adapter] ?? defaultLimit }

    /// - Parameters:
    ///   - candidates: wanted address → the adapters that see it now (powered, allowed).
    ///   - current: address → adapter of its running session.
    ///   - refused: address → adapters that answered its Connect with a connection-limit error, still in back-off.
    ///   - struggling: address → adapters on which its last attempt failed before any notification (recently).
    /// - Returns: address → adapter, one per address that can be placed.
    func plan(candidates: [String: Set<String>], current: [String: String],
              refused: [String: Set<String>] = [:], struggling: [String: Set<String>] = [:]) -> [String: String] {
        var result: [String: String] = [:]
        var load: [String: Int] = [:]
        // Kept first (rule 2), so new devices are weighed against what already runs.
        for (address, adapter) in current {
            guard let seen = candidates[address], seen.contains(adapter) else { continue }
            if let pin = pins[address], pin != adapter { continue }
            if refused[address]?.contains(adapter) == true, seen.count > 1 { continue }
            if struggling[address]?.contains(adapter) == true, seen.count > 1 { continue }  // rule 4: placed below
            result[address] = adapter
            load[adapter, default: 0] += 1
        }
        for address in candidates.keys.sorted() where result[address] == nil {
            let seen = candidates[address]!
            if let pin = pins[address] {
                if seen.contains(pin) { result[address] = pin; load[pin, default: 0] += 1 }
                continue
            }
            let open = seen.subtracting(refused[address] ?? []).filter { load[$0, default: 0] < limit(of: $0) }
            let untried = open.subtracting(struggling[address] ?? [])
            guard let best = (untried.isEmpty ? open : untried)
                .min(by: { (load[$0, default: 0], $0) < (load[$1, default: 0], $1) }) else { continue }
            result[address] = best
            load[best, default: 0] += 1
        }
        return result
    }
}
