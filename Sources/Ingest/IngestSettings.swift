/// Tuning of the ingest pipeline. Every default is what heartd ships with.
public struct IngestSettings: Sendable, Hashable, Codable {
    /// Beats per heartbeat series before rotating into a new one (HealthKit's limit is 1000).
    public var maxBeats: Int = 1000
    /// Values per heart-rate or energy series before the set rotates (a notification adds at most one to each):
    /// bounds an open series in memory and in checkpoints whatever the notification rate. 1000 like `maxBeats`,
    /// so a strap at one notification a second fills both at about the same time.
    public var maxValues: Int = 1000
    /// Longest span of a series set in seconds before rotating (1 hour).
    public var maxDuration: Double = 3600
    /// With no notification for this many seconds the device's series are finished ("idle").
    public var idleTimeout: Double = 30
    /// Notifications missing for longer than this (monotonic seconds) break the beat chain: the next beat is
    /// flagged `precededByGap`. Also the longest time a heart-rate value is held.
    public var gapThreshold: Double = 3
    /// When the RR chain and the monotonic clock disagree by more than this (seconds) the chain is re-anchored
    /// to the clock and the next beat is flagged.
    public var clockTolerance: Double = 2
    /// RR intervals below this (ms) are not real beats: dropped, counted, next beat flagged.
    public var rrMinMs: Double = 250
    /// RR intervals above this (ms) are not real beats either (missed detections).
    public var rrMaxMs: Double = 2500
    /// Open series are checkpointed through the sink at most this often (seconds), when they changed.
    public var checkpointInterval: Double = 1
    /// Finished samples kept in memory while the sink fails, counted in beats (a quantity point counts as one).
    /// Beyond it the oldest are dropped and counted.
    public var memoryBufferBeats: Int = 500_000
    /// Quiet-loss detection (docs/INGEST.md, "Timeline model"): learn each sensor's notification cadence and
    /// check every notification's RR chain against its send time. Off leaves only the loud rules.
    public var quietLossDetection = true
    /// Slack (seconds) allowed between a notification's first beat and the previous send time before beats
    /// count as missing: covers the fitted send-time line's error and the sensor's beat-detection jitter.
    public var sendTimeTolerance: Double = 0.03

    public init(maxBeats: Int = 1000, maxValues: Int = 1000, maxDuration: Double = 3600, idleTimeout: Double = 30, gapThreshold: Double = 3,
                clockTolerance: Double = 2, rrMinMs: Double = 250, rrMaxMs: Double = 2500,
                checkpointInterval: Double = 1, memoryBufferBeats: Int = 500_000,
                quietLossDetection: Bool = true, sendTimeTolerance: Double = 0.03) {
        self.maxBeats = max(1, maxBeats)
        self.maxValues = max(1, maxValues)
        self.maxDuration = maxDuration
        self.idleTimeout = idleTimeout
        self.gapThreshold = gapThreshold
        self.clockTolerance = clockTolerance
        self.rrMinMs = rrMinMs
        self.rrMaxMs = rrMaxMs
        self.checkpointInterval = checkpointInterval
        self.memoryBufferBeats = max(0, memoryBufferBeats)
        self.quietLossDetection = quietLossDetection
        self.sendTimeTolerance = max(0, sendTimeTolerance)
    }
}
