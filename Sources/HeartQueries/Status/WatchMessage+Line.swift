import Control
import Foundation

extension WatchMessage {
    /// The typed event of a received `watch` line (`{"event": name, ...fields}`, `ControlClient.watchLines`), decoded
    /// in one pass (`WatchLineScanner` for heart rate and beats, `JSONDecoder` for the rest): the same result as
    /// `init(knownEvent:)` of the line's `ControlEvent`, without decoding a `JSONValue` first and re-encoding it for
    /// the payload (for a client that follows every notification: LiveFeed).
    /// Nil for an event this client does not know (a newer daemon's); a line that is not an event, or whose fields do
    /// not have its payload's shape, throws `WatchMessageError` `.malformed`.
    public init?(line: [UInt8]) throws(WatchMessageError) {
        // The two events of every notification first, read by hand; the rest (and anything odd) by the decoder.
        if let message = WatchLineScanner.hotMessage(line) {
            self = message
            return
        }
        let decoded: WatchLine
        do {
            decoded = try WatchLine.decoder.decode(WatchLine.self, from: Data(line))
        } catch {
            throw WatchMessageError(.malformed, "watch line: \(error)")
        }
        guard let message = decoded.message else { return nil }
        self = message
    }
}

/// A `watch` line: its `event` names the payload, whose fields sit beside it.
private struct WatchLine: Decodable {
    let message: WatchMessage?

    private enum Key: String, CodingKey { case event }

    /// ISO 8601 dates, as `JSONBridge` reads them.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard let date = ExportDates.parse(text) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not an ISO 8601 date: \(text)"))
            }
            return date
        }
        return decoder
    }()

    init(from decoder: any Decoder) throws {
        let name = try decoder.container(keyedBy: Key.self).decode(String.self, forKey: .event)
        guard let event = WatchEvent(rawValue: name) else {
            message = nil
            return
        }
        message = switch event {
        case .connected: .connected(try .init(from: decoder))
        case .disconnected: .disconnected(try .init(from: decoder))
        case .heartRate: .heartRate(try .init(from: decoder))
        case .beats: .beats(try .init(from: decoder))
        case .battery: .battery(try .init(from: decoder))
        case .contact: .contact(try .init(from: decoder))
        case .seriesFinished: .seriesFinished(try .init(from: decoder))
        case .sessionStarted: .sessionStarted(try .init(from: decoder))
        case .sessionStopped: .sessionStopped(try .init(from: decoder))
        case .sessionEnded: .sessionEnded(try .init(from: decoder))
        case .dfaAlpha1: .dfaAlpha1(try .init(from: decoder))
        case .peopleChanged: .peopleChanged(try .init(from: decoder))
        }
    }
}
