/// Bluetooth device addresses as BlueZ prints them: six pairs of hex digits, `AA:BB:CC:DD:EE:FF`. The one check
/// the configuration, the control socket and heartctl all use.
public enum DeviceAddress {
    public static func isValid(_ s: String) -> Bool {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        return parts.count == 6 && parts.allSatisfy { $0.count == 2 && $0.allSatisfy(\.isHexDigit) }
    }

    /// Upper case, BlueZ's spelling, or nil if `s` is not an address.
    public static func normalized(_ s: String) -> String? {
        isValid(s) ? s.uppercased() : nil
    }
}
