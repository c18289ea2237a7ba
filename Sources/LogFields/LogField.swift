import Logging

/// The structured fields heartd puts on its log lines, one name each, as journald stores them. Every line that
/// concerns a sensor carries `HEARTD_DEVICE`, one about an adapter `HEARTD_ADAPTER`, one about a sample
/// `HEARTD_SERIES`, so `journalctl -u heartd HEARTD_DEVICE=AA:BB:CC:DD:EE:FF` finds all of them. The names are
/// valid journald field names already, so the journal handler passes them through unchanged, and the stderr
/// handler prints them as `HEARTD_DEVICE=…`.
public enum LogField: String, Sendable, CaseIterable {
    /// A sensor's Bluetooth address, upper case: `A0:9E:1A:12:34:56`.
    case device = "HEARTD_DEVICE"
    /// An adapter's name: `hci0`.
    case adapter = "HEARTD_ADAPTER"
    /// A sample's UUID (a heartbeat or quantity series).
    case series = "HEARTD_SERIES"
    /// A fixed journald message id (`Systemd.MessageID`) for the catalog and `journalctl MESSAGE_ID=…`.
    case messageID = "MESSAGE_ID"

    /// The metadata key, for `Logger.Metadata` literals: `[LogField.device.key: "\(address)"]`.
    public var key: String { rawValue }
}

extension Logger {
    /// A field on every line this logger writes: `logger[field: .device] = "\(address)"`.
    public subscript(field field: LogField) -> Logger.Metadata.Value? {
        get { self[metadataKey: field.key] }
        set { self[metadataKey: field.key] = newValue }
    }
}
