import Control

extension WatchMessage {
    /// The typed event of a received `watch` line (`{"event": name, ...fields}`, `ControlClient.watchLines`), decoded
    /// straight from the line's text (`JSONPlainText`: no `JSONValue` tree for heartd's plain lines; a heart rate and
    /// beats read in place, other events parsed to the tree and decoded, `JSONBridge.decode(_:text:)`) into its payload: the same message, or the same error, as `init(knownEvent:)` of the line's parsed
    /// `ControlEvent`. Nil for an event this client does not know (a newer daemon's); a line that is not an event,
    /// or whose fields do not have its payload's shape, throws `WatchMessageError` `.malformed`.
    public init?(line: [UInt8]) throws(WatchMessageError) {
        if let plain = JSONPlainText(line) {
            // heartd's own lines: the name read in place, a heart rate or beats too (`WatchPayload+Plain`).
            let root = plain.value
            guard let event = root[member: "event"]?.string else {
                throw WatchMessageError(.malformed, "a watch line without an \"event\" name")
            }
            guard let name = WatchEvent(rawValue: event) else { return nil }
            switch name {
            case .heartRate: if let payload = WatchPayload.HeartRate(plain: root) { self = .heartRate(payload); return }
            case .beats: if let payload = WatchPayload.Beats(plain: root) { self = .beats(payload); return }
            default: break
            }
            try self.init(name, fields: .text(line), event: event)
            return
        }
        let head: WatchLineHead
        do {
            head = try JSONBridge.decode(WatchLineHead.self, text: line)
        } catch {
            throw WatchMessageError(.malformed, "watch line: \(error)")
        }
        guard let event = head.event else { throw WatchMessageError(.malformed, "a watch line without an \"event\" name") }
        guard let name = WatchEvent(rawValue: event) else { return nil }
        try self.init(name, fields: .text(line), event: event)
    }
}

/// A `watch` line's event name: nil when the line is not an object or its `event` is not a string (as
/// `ControlEvent(json:)` reads it); only text that is not JSON throws.
private struct WatchLineHead: Decodable {
    let event: String?

    private enum Key: String, CodingKey { case event }

    init(from decoder: any Decoder) throws {
        event = (try? decoder.container(keyedBy: Key.self)).flatMap { try? $0.decode(String.self, forKey: .event) }
    }
}
