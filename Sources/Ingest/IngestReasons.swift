/// Why a series set was finished; stored as `MetadataKey.finishReason`.
public enum FinishReason: String, Sendable, Hashable, Codable, CaseIterable {
    case disconnect
    case idle
    case maxDuration = "max-duration"
    case maxBeats = "max-beats"
    /// The heart-rate or energy series reached `maxValues`: the set rotates, the beat chain continues.
    case maxValues = "max-values"
    case shutdown
    /// A session covering the device started or stopped: the series rotate, the beat chain continues.
    case session
}

/// Which rule flagged a beat `precededByGap`. Counted per device in `IngestCounters.gapsByRule`.
public enum GapReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// First beat after the device (re)connected.
    case connection
    /// First beat after skin contact came back (RR values are ignored while contact is "not detected").
    case contactRegained = "contact-regained"
    /// Notifications stopped for longer than `gapThreshold`.
    case notificationGap = "notification-gap"
    /// The RR chain and the monotonic clock disagreed by more than `clockTolerance`.
    case clockDrift = "clock-drift"
    /// An implausible RR value was dropped.
    case implausibleRR = "implausible-rr"
    /// The monotonic clock went backwards (replay time going back).
    case clockBackwards = "clock-backwards"
    /// A notification could not be decoded, so its RR values are lost.
    case malformedNotification = "malformed-notification"
    /// A notification was lost (a skipped slot of the sensor's cadence) and it carried beats: the next
    /// notification's first beat would fall before the lost one was sent (docs/INGEST.md, "Timeline model").
    case lostNotification = "lost-notification"
    /// Notifications without RR values while the sensor was sending them, and beats fell inside them.
    case missingRR = "missing-rr"
    /// Nothing was seen missing, yet a notification's first beat would fall before the previous send time:
    /// beats went missing earlier without a sign (the chain is behind the sensor's clock).
    case chainBehind = "rr-chain-behind"
}
