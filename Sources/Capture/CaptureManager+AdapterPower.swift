import Foundation
import LogFields
import Logging
import Posix
import SourceEvents
import Systemd

/// An adapter heartd may use that stays powered off (or that BlueZ does not have): one journal line per stretch,
/// after `policy.adapterOffNotice`, and one when it becomes usable. heartd only uses powered adapters and never
/// powers one itself (docs/CONFIGURATION.md).
extension CaptureManager {
    /// Called by every reconcile with its survey; the reconcile schedules a tick for `power.nextDeadline`.
    func watchAdapterPower(_ survey: AdapterSurvey) {
        guard bluezOwner != nil else {  // bluetoothd itself is gone (logged as such): every stretch starts over
            power = AdapterPowerWatch(delay: policy.adapterOffNotice)
            return
        }
        let present = survey.allowed.map { (name: $0.name, powered: survey.powered.contains($0.path)) }
        let paths = Dictionary(survey.allowed.map { ($0.name, $0.path) }) { first, _ in first }
        for change in power.update(present, expected: policy.adapters, now: MonotonicClock.now(), date: Date()) {
            switch change {
            case .unusable(let name, let condition, let seconds):
                let state = paths[name].flatMap { survey.powerStates[$0] }
                // Nothing to capture with is a warning; one adapter of several off is worth knowing, no more.
                let level: Logger.Level = survey.powered.isEmpty ? .warning : .notice
                logger.log(level: level, "\(Self.unusableMessage(condition, state))", metadata: [
                    LogField.adapter.key: .string(name.isEmpty ? "any" : name),
                    LogField.messageID.key: .string(MessageID.adapterOff.hex),
                    "waited_seconds": .string("\(Int(seconds.rounded()))"),
                    "power_state": .string(condition == .absent ? "absent" : state?.rawValue ?? "unknown"),
                    "powered_adapters": .string("\(survey.powered.count)"),
                ])
            case .usable(let name, let was, let seconds):
                logger.info(was == .off ? "adapter powered on; capture uses it" : "adapter appeared; capture uses it",
                            metadata: [LogField.adapter.key: .string(name.isEmpty ? "any" : name),
                                       "waited_seconds": .string("\(Int(seconds.rounded()))")])
            }
        }
    }

    /// The line's text: what heartd does (waits), why it does not power the adapter, and what a user can do.
    static func unusableMessage(_ condition: AdapterPowerWatch.Condition, _ state: AdapterPowerState?) -> String {
        switch (condition, state) {
        case (.absent, _):
            return "adapter not present in BlueZ; heartd waits for it (bluetoothctl list shows the adapters bluetoothd has)"
        case (.off, .offBlocked):
            return "adapter is blocked by rfkill; heartd waits for it (rfkill unblock bluetooth: bluetoothd then powers it)"
        case (.off, _):
            return "adapter is powered off; heartd waits for it and does not power adapters itself "
                + "(bluetoothd powers them at start with AutoEnable=true; bluetoothctl power on)"
        }
    }
}
