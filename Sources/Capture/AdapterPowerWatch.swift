import Foundation

/// How long each adapter heartd may use has been unusable — present but not powered, or expected and absent — and
/// the one notice per such stretch.
///
/// heartd never powers an adapter itself (docs/CONFIGURATION.md, "An adapter that is powered off"): bluetoothd
/// powers every adapter it finds (`AutoEnable`), so one that stays off was turned off, is blocked, or was missed —
/// and capture waits for it without a word unless heartd says so. Pure (the reconcile hands it the survey and a
/// clock), so that "once per stretch, after the delay" is tested without BlueZ (`AdapterPowerWatchTests`).
struct AdapterPowerWatch: Sendable {
    /// Why an adapter cannot be used.
    enum Condition: Sendable, Hashable {
        /// BlueZ has it, not powered.
        case off
        /// BlueZ has no such adapter (a name in `bluetooth.adapters`; or none at all, name "").
        case absent
    }

    /// An unusable stretch: since when (monotonic, and the wall-clock time for `status`), why now, and whether told.
    struct Stretch: Sendable, Hashable {
        let since: Double
        let sinceDate: Date
        var condition: Condition
        var noticed = false
    }

    /// What the reconcile logs.
    enum Change: Sendable, Equatable {
        /// Unusable for `seconds` (the delay has passed): one line per stretch.
        case unusable(adapter: String, condition: Condition, seconds: Double)
        /// Usable again after an `unusable` (an adapter that came on within the delay says nothing).
        case usable(adapter: String, was: Condition, afterSeconds: Double)
    }

    /// Seconds an adapter may stay unusable before the notice (bluetoothd powers adapters within a second).
    let delay: Double
    /// Adapter name ("" for "any adapter") → its current unusable stretch.
    private(set) var stretches: [String: Stretch] = [:]

    init(delay: Double) {
        self.delay = max(0, delay)
    }

    /// Takes the allowed adapters BlueZ has now and the names heartd was told to use (`bluetooth.adapters`; empty:
    /// any adapter, so only "none at all" is absent); returns what to log. An adapter neither present nor expected
    /// is forgotten.
    mutating func update(_ present: [(name: String, powered: Bool)], expected: Set<String>, now: Double,
                         date: Date) -> [Change] {
        var unusable: [String: Condition] = [:]
        for adapter in present where !adapter.powered { unusable[adapter.name] = .off }
        let presentNames = Set(present.map(\.name))
        for name in expected.subtracting(presentNames) { unusable[name] = .absent }
        if expected.isEmpty, present.isEmpty { unusable[""] = .absent }
        var changes: [Change] = []
        for (name, was) in stretches where unusable[name] == nil {
            stretches[name] = nil  // powered now, or no longer expected (unplugged while any adapter would do)
            if was.noticed, name.isEmpty || presentNames.contains(name) {
                changes.append(.usable(adapter: name, was: was.condition, afterSeconds: now - was.since))
            }
        }
        for (name, condition) in unusable.sorted(by: { $0.key < $1.key }) {
            var stretch = stretches[name] ?? Stretch(since: now, sinceDate: date, condition: condition)
            stretch.condition = condition
            if !stretch.noticed, now - stretch.since >= delay {
                stretch.noticed = true
                changes.append(.unusable(adapter: name, condition: condition, seconds: now - stretch.since))
            }
            stretches[name] = stretch
        }
        return changes
    }

    /// When the next notice is due (a reconcile then), if an adapter is unusable and not yet told.
    var nextDeadline: Double? { stretches.values.filter { !$0.noticed }.map { $0.since + delay }.min() }

    /// Since when the adapter has been seen unusable (nil while powered, or not tracked).
    func offSince(_ name: String) -> Date? { stretches[name]?.sinceDate }
}
