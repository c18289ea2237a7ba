import Foundation
import HealthModel

extension WatchPayload {
    /// `dfa-alpha1`: a device's live DFA α1 (4…16 beats) over its rolling 2-minute window of corrected RR intervals,
    /// sent every 5 s of beat time while it streams (`HealthModel.LiveDFAAlpha1`). `alpha1` is absent when
    /// `state` is not `measured`: above 5 % corrected intervals in the window (Rogers et al. 2021) or before the
    /// window holds a gap-free run of more than 16 intervals.
    public struct DFAAlpha1: Codable, Sendable, Hashable {
        public var device: String
        /// The time of the window's last beat.
        public var at: Date
        public var alpha1: Double?
        public var state: DFAAlpha1State
        /// RR intervals in the window (every gap-free run in it).
        public var intervals: Int
        /// Corrected intervals / intervals × 100.
        public var artifactPercent: Double
        /// True once the window spans its full 2 minutes (before, α1 is of a shorter window).
        public var windowFull: Bool

        public init(device: String, at: Date, alpha1: Double?, state: DFAAlpha1State, intervals: Int,
                    artifactPercent: Double, windowFull: Bool) {
            self.device = device
            self.at = at
            self.alpha1 = alpha1
            self.state = state
            self.intervals = intervals
            self.artifactPercent = artifactPercent
            self.windowFull = windowFull
        }

        /// The reading of `device`'s window whose last beat was at `at`.
        public init(device: String, at: Date, reading: LiveDFAAlpha1.Reading) {
            let state: DFAAlpha1State = reading.withheld ? .withheldArtifacts
                : reading.alpha1 == nil ? .tooFewIntervals : .measured
            self.init(device: device, at: at, alpha1: reading.alpha1, state: state, intervals: reading.intervals,
                      artifactPercent: reading.artifactPercent, windowFull: reading.windowFull)
        }

        enum CodingKeys: String, CodingKey {
            case device, at, alpha1, state, intervals, artifactPercent = "artifact_pct", windowFull = "window_full"
        }
    }
}

/// Whether a live DFA α1 reading has a value, and why not.
public enum DFAAlpha1State: String, Codable, Sendable, Hashable, CaseIterable {
    case measured
    /// More than `LiveDFAAlpha1.artifactThresholdPercent` (5 %) of the window's intervals were corrected.
    case withheldArtifacts = "withheld-artifacts"
    /// No gap-free run of more than 16 intervals in the window yet.
    case tooFewIntervals = "too-few-intervals"
}
