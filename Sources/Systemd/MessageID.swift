/// Fixed journald `MESSAGE_ID`s (128-bit, lowercase hex without dashes) for heartd's notable events,
/// so they can be found with `journalctl MESSAGE_ID=…`. Generated once; never change them.
public enum MessageID: String, Sendable, CaseIterable {
    /// A sensor connected and notifications started.
    case deviceConnected = "5b0d6a1e3f8c4f52a8e1c2d4b6a79e01"
    /// A sensor disconnected (or went silent past the threshold).
    case deviceDisconnected = "9c2e4f7a1b3d4e6f8a0b2c4d6e8f1a23"
    /// BlueZ refused AcquireNotify for a sensor's connection; capture subscribed with StartNotify instead.
    case subscribeFallback = "6ea63dbb8c464732b278095a76600319"
    /// An adapter heartd may use stayed powered off (or rfkill-blocked) past `CapturePolicy.adapterOffNotice`.
    case adapterOff = "89c501f87e8f4687955b9bf246529857"
    /// A quantity or heartbeat series was finished and stored.
    case seriesFinished = "3e7a9c1b5d2f4a6c8e0b1d3f5a7c9e45"
    /// A gap was detected in a beat stream (`precededByGap`).
    case gap = "d41f8b2a6c3e4d5b9a7f1e0c2b4d6a67"
    /// Open series were recovered from the checkpoint journal at start-up.
    case recovery = "7f3b1d9e5a2c4b8d6e0f2a4c6b8d0e89"
    /// The store failed (write error, disk full, corruption); beats are buffered in memory.
    case storeError = "b82c6e0a4f1d4c3a9b5e7d1f3a5c7e0b"
    /// The store writes again after it could not be opened or written; what waited in memory is being saved.
    case storeRecovered = "81d2226cc006445da2328cd638143cc7"
    /// `heartd-sync` connected to the central database (at start or after a failure) and delivers.
    case syncConnected = "82bcff431241445892b063b60c4656c0"
    /// `heartd-sync` delivered a batch of changes (debug level) or caught up after a backlog (info).
    case syncDelivered = "01c1d1f8abc64470ac8d53a5d5a03354"
    /// `heartd-sync` failed to deliver (server down, connection lost, timeout, refused); it retries.
    case syncError = "ddd607e323754b92807fd4a0208adc7c"

    /// The id as journald expects it (32 lowercase hex digits).
    public var hex: String { rawValue }
}
