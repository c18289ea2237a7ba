/// An adapter's `PowerState` as bluetoothd exports it (org.bluez.Adapter1, `src/adapter.c`; in 5.66 an
/// experimental property, exported only by `bluetoothd -E`). `Powered`
/// says whether heartd can use the adapter; this says why not, and whether it is on its way.
public enum AdapterPowerState: String, Sendable, Hashable, Codable, CaseIterable {
    case on
    case off
    /// Being powered on.
    case offEnabling = "off-enabling"
    /// Being powered off.
    case onDisabling = "on-disabling"
    /// Blocked by rfkill (`rfkill list bluetooth`): setting `Powered` fails with `org.bluez.Error.Blocked`; bluetoothd
    /// powers the adapter itself once it is unblocked (`src/rfkill.c`).
    case offBlocked = "off-blocked"
}
