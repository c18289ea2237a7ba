import Foundation

/// Live DFA α1 for exercise (Gronwald & Rogers: α1 ≈ 0.75 near the aerobic threshold, 0.5 near the anaerobic
/// one) over a rolling window of beats: feed it each beat as it arrives; every `updateInterval` seconds of beat
/// time it classifies and corrects the window's RR intervals (`RRArtifactCorrection`, within each gap-free
/// segment) and computes α1 over 4…16 beats of the corrected intervals (`DetrendedFluctuation`, windows pooled
/// over the segments, none across a gap).
///
/// α1 is withheld (nil) when more than `artifactThresholdPercent` of the window's intervals were corrected:
/// Rogers et al. (2021, Front. Physiol. 11:596567) showed α1 biased above 5 % artifacts and discard such
/// windows; FatMaxxer and HRV Logger use the same 5 %. It is also nil until the window holds a gap-free segment
/// of more than 16 intervals. The default window is 2 minutes (Rogers et al.; Gronwald et al. 2020).
public struct LiveDFAAlpha1: Sendable {
    /// One update.
    public struct Reading: Codable, Sendable, Hashable {
        /// The offset of the window's last beat (the series' beat time, in seconds).
        public var offset: TimeInterval
        /// nil when withheld or too few intervals.
        public var alpha1: Double?
        /// RR intervals in the window (all gap-free segments).
        public var intervals: Int
        /// Corrected intervals / intervals × 100.
        public var artifactPercent: Double
        /// True when `alpha1` was withheld for `artifactPercent` above the threshold.
        public var withheld: Bool
        /// True once the window spans its full length.
        public var windowFull: Bool

        enum CodingKeys: String, CodingKey {
            case offset, alpha1, intervals, artifactPercent = "artifact_pct", withheld, windowFull = "window_full"
        }
    }

    public static let artifactThresholdPercent = 5.0

    public let window: TimeInterval
    public let updateInterval: TimeInterval
    /// Beat times in ticks of 1/1024 s, and whether each is preceded by a gap; `head` is the window's first.
    private var ticks: [Int] = []
    private var gaps: [Bool] = []
    private var head = 0
    private var firstTick: Int?
    private var nextUpdateTick: Int?

    /// A 2-minute window updated every 5 s of beat time by default.
    public init(window: TimeInterval = 120, updateInterval: TimeInterval = 5) {
        self.window = window
        self.updateInterval = updateInterval
    }

    /// Adds a beat (offsets ascending, on the 1/1024 s grid); returns a reading when an update is due.
    /// A beat not later than the previous one starts a new segment, as in `HRVMetrics.beatSegments`.
    public mutating func append(_ beat: Beat) -> Reading? {
        add(beat) ? reading() : nil
    }

    /// Adds a beat as `append(_:)` does, without computing the reading: true when an update is due (the caller
    /// then calls `reading()`, or skips it when nobody would see it). O(1) amortised.
    public mutating func add(_ beat: Beat) -> Bool {
        let t = HRVAnalysis.ticks(beat.offset)
        let gap = beat.precededByGap || (ticks.last.map { t <= $0 } ?? true)
        ticks.append(t)
        gaps.append(gap)
        if firstTick == nil { firstTick = t }
        let span = Int((window * 1024).rounded())
        while head < ticks.count && ticks[head] < t - span { head += 1 }
        if head > 4096 {
            ticks.removeFirst(head)
            gaps.removeFirst(head)
            head = 0
        }
        guard t >= (nextUpdateTick ?? t) else { return false }
        nextUpdateTick = t + Int((updateInterval * 1024).rounded())
        return true
    }

    /// The reading of the current window (without waiting for the next update); nil before any beat.
    public func reading() -> Reading? {
        guard let last = ticks.last, let firstTick else { return nil }
        var nn: [[Double]] = []
        var intervals = 0, corrected = 0
        var start = head
        for i in head ... ticks.count - 1 where i == ticks.count - 1 || gaps[i + 1] {
            if i > start {
                let c = RRArtifactCorrection(peaks: Array(ticks[start ... i]))
                intervals += i - start
                corrected += c.corrected
                nn.append(c.intervalsMs())
            }
            start = i + 1
        }
        let share = intervals > 0 ? Double(corrected) / Double(intervals) * 100 : 0
        let withheld = share > Self.artifactThresholdPercent
        let alpha1 = withheld ? nil : DetrendedFluctuation.alpha(segments: nn, scales: DetrendedFluctuation.shortScales)
        return Reading(offset: Double(last) / 1024, alpha1: alpha1, intervals: intervals, artifactPercent: share,
                       withheld: withheld, windowFull: Double(last - firstTick) / 1024 >= window)
    }

    /// Forgets every beat (a new session).
    public mutating func reset() {
        ticks = []
        gaps = []
        head = 0
        firstTick = nil
        nextUpdateTick = nil
    }
}
