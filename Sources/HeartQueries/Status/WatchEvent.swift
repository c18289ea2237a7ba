/// The events `watch` streams (`{"event": NAME, …}`), one name each; heartctl reads the same enum. docs/CONTROL.md
/// lists their fields (`ControlDocumentationTests` checks that every case is there).
public enum WatchEvent: String, Sendable, CaseIterable {
    case connected
    case disconnected
    case heartRate = "heart-rate"
    case beats
    case battery
    case seriesFinished = "series-finished"
    /// `watch` with `session`: the session stopped (`session`, `end`); the stream ends.
    case sessionEnded = "session-ended"
}
