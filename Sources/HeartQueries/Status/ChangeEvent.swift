/// The events `subscribe` streams (`{"event": NAME, "anchor": N, …}`), one name each; heartctl reads the same enum.
/// docs/CONTROL.md lists their fields (`ControlDocumentationTests` checks that every case is there).
public enum ChangeEvent: String, Sendable, CaseIterable {
    /// A sample saved: `sample` (its summary, as `series` lists it).
    case added
    /// A sample or session deleted: `uuid`, `type`.
    case deleted
    /// A session started or stopped: `session`, as it is now.
    case session
    /// Every change up to `anchor` was sent; later ones follow as they are saved.
    case caughtUp = "caught-up"
}
