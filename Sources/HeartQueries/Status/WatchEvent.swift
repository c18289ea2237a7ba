/// The events `watch` streams (`{"event": NAME, …}`), one name each; `WatchMessage` is the typed event. docs/CONTROL.md
/// lists their fields (`ControlDocumentationTests` checks that every case is there).
public enum WatchEvent: String, Sendable, CaseIterable, Codable {
    case connected
    case disconnected
    case heartRate = "heart-rate"
    case beats
    case battery
    /// The sensor's skin contact changed, or was first reported.
    case contact
    case seriesFinished = "series-finished"
    /// A session started (unfiltered `watch` only).
    case sessionStarted = "session-started"
    /// A session stopped (unfiltered `watch` only).
    case sessionStopped = "session-stopped"
    /// `watch` with `session`: the session stopped (`session`, `end`); the stream ends.
    case sessionEnded = "session-ended"
    /// A device's live DFA α1 over its rolling 2-minute window, every 5 s of beat time while it streams.
    case dfaAlpha1 = "dfa-alpha1"
    /// People or strap assignments changed (unfiltered `watch` only).
    case peopleChanged = "people-changed"
}
