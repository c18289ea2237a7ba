/// One stored beat the scorer counted against the model (`TimelineScore`): a loss left unflagged, or a flag where
/// nothing was missing. `heartbench timeline --first-seconds --list-misses` prints them with what the model saw.
public struct TimelineCase: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        /// Beats were missing before this one (or it is an implied predecessor) and it carries no flag.
        case missed
        /// It carries a flag and nothing was missing before it.
        case falseGap = "false-gap"
    }

    public var kind: Kind
    /// The true beat (index into `StrapRecording.rr`).
    public var beat: Int
    /// The index into `StrapRecording.steps` of the event whose handling emitted it.
    public var step: Int

    public init(kind: Kind, beat: Int, step: Int) {
        self.kind = kind
        self.beat = beat
        self.step = step
    }
}
