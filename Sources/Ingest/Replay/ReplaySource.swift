import SourceEvents

/// Replay text held in memory as a `Source` (tests, small recordings). `heartd replay` streams files and
/// standard input through `ReplayStream` instead, in bounded memory.
public struct ReplaySource: Source {
    public let parsedEvents: [SourceEvent]
    public let issues: [ReplayIssue]

    /// Parses replay text.
    public init(text: String) {
        (parsedEvents, issues) = ReplayReader.parse(text)
    }

    public func events() -> AsyncStream<SourceEvent> {
        let events = parsedEvents
        return AsyncStream { continuation in
            for event in events { continuation.yield(event) }
            continuation.finish()
        }
    }
}
