import BlueZ
import LogFields

/// The session's side of a connection-limit answer (`BlueZError.Kind.connectionLimit`): not a broken sensor but a
/// full controller. The manager is told (it learns the adapter's limit and, when another adapter sees the device,
/// moves the device there: this session is then stopped with `adapter-reassigned`); otherwise the session waits
/// `bluetooth.connection_limit_backoff` before trying the same adapter again, not its short link-loss back-off.
enum AdapterFull {
    /// The back-off to wait, or nil when `failure` is not a connection-limit answer.
    static func check(_ failure: BlueZError?, session s: DeviceCaptureSession) async -> Double? {
        guard let failure, failure.kind == .connectionLimit else { return nil }
        let backoff = await s.manager.connectionLimited(address: s.address, adapterPath: s.adapterPath)
        s.logger.warning("adapter out of connections", metadata: [
            LogField.adapter.key: .string(s.adapterPath.lastPathComponent), "error": .string("\(failure)"),
            "backoff_s": .stringConvertible(backoff)])
        return backoff
    }
}
