import Control

extension WatchMessage {
    /// The typed event of a received `watch` line (`{"event": name, ...fields}`, `ControlClient.watchLines`): the
    /// line parsed once into a `JSONValue` and its payload decoded from that tree (`JSONBridge`), as
    /// `init(knownEvent:)` of the line's `ControlEvent` gives. Nil for an event this client does not know (a newer
    /// daemon's); a line that is not an event, or whose fields do not have its payload's shape, throws
    /// `WatchMessageError` `.malformed`.
    public init?(line: [UInt8]) throws(WatchMessageError) {
        let event: ControlEvent?
        do {
            event = ControlEvent(json: try JSONValue(parsing: line))
        } catch {
            throw WatchMessageError(.malformed, "watch line: \(error)")
        }
        guard let event else { throw WatchMessageError(.malformed, "a watch line without an \"event\" name") }
        guard let message = try WatchMessage(knownEvent: event) else { return nil }
        self = message
    }
}
