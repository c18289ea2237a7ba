import Control
import Foundation
import HealthModel
import Ingest

/// A `watch` event, typed: the daemon builds its `ControlEvent` from one, and heartctl and the network services
/// (through `LiveFeed`) decode each event they receive into one, so a field is spelled once, in its payload type.
public enum WatchMessage: Sendable, Hashable {
    case connected(WatchPayload.Connected)
    case disconnected(WatchPayload.Disconnected)
    case heartRate(WatchPayload.HeartRate)
    case beats(WatchPayload.Beats)
    case battery(WatchPayload.Battery)
    case contact(WatchPayload.Contact)
    case seriesFinished(WatchPayload.SeriesFinished)
    case sessionStarted(WatchPayload.SessionChanged)
    case sessionStopped(WatchPayload.SessionChanged)
    case sessionEnded(WatchPayload.SessionEnded)
    case dfaAlpha1(WatchPayload.DFAAlpha1)
    case peopleChanged(WatchPayload.PeopleChanged)

    public var name: WatchEvent {
        switch self {
        case .connected: .connected
        case .disconnected: .disconnected
        case .heartRate: .heartRate
        case .beats: .beats
        case .battery: .battery
        case .contact: .contact
        case .seriesFinished: .seriesFinished
        case .sessionStarted: .sessionStarted
        case .sessionStopped: .sessionStopped
        case .sessionEnded: .sessionEnded
        case .dfaAlpha1: .dfaAlpha1
        case .peopleChanged: .peopleChanged
        }
    }

    /// The device the event is about (nil for session and people events).
    public var device: String? {
        switch self {
        case .connected(let p): p.device
        case .disconnected(let p): p.device
        case .heartRate(let p): p.device
        case .beats(let p): p.device
        case .battery(let p): p.device
        case .contact(let p): p.device
        case .seriesFinished(let p): p.device
        case .dfaAlpha1(let p): p.device
        case .sessionStarted, .sessionStopped, .sessionEnded, .peopleChanged: nil
        }
    }

    /// The pipeline's live event as `watch` sends it.
    public init(_ event: LiveEvent) {
        switch event {
        case .connected(let address, let info, let at):
            self = .connected(.init(device: address, at: at, info: info))
        case .disconnected(let address, let reason, let at):
            self = .disconnected(.init(device: address, at: at, reason: reason.description))
        case .heartRate(let address, let bpm, let at):
            self = .heartRate(.init(device: address, at: at, bpm: bpm))
        case .beats(let address, let beats):
            self = .beats(.init(device: address, beats: beats.map { .init(time: $0.time, gap: $0.precededByGap) }))
        case .battery(let address, let percent, let at):
            self = .battery(.init(device: address, at: at, percent: percent))
        case .contact(let address, let detected, let at):
            self = .contact(.init(device: address, at: at, detected: detected))
        case .seriesFinished(let address, let uuid, let type, let reason):
            self = .seriesFinished(.init(device: address, uuid: uuid, type: type, reason: reason))
        }
    }

    /// The event on the wire; `session-ended` is its stream's last.
    public var controlEvent: ControlEvent {
        let fields: [String: JSONValue] = switch self {
        case .connected(let p): JSONBridge.params(p)
        case .disconnected(let p): JSONBridge.params(p)
        case .heartRate(let p): JSONBridge.params(p)
        case .beats(let p): JSONBridge.params(p)
        case .battery(let p): JSONBridge.params(p)
        case .contact(let p): JSONBridge.params(p)
        case .seriesFinished(let p): JSONBridge.params(p)
        case .sessionStarted(let p): JSONBridge.params(p)
        case .sessionStopped(let p): JSONBridge.params(p)
        case .sessionEnded(let p): JSONBridge.params(p)
        case .dfaAlpha1(let p): JSONBridge.params(p)
        case .peopleChanged(let p): JSONBridge.params(p)
        }
        return ControlEvent(name.rawValue, fields: fields, isFinal: name == .sessionEnded)
    }

    /// The typed event of a received one: an unknown name or fields of another shape throw `WatchMessageError`
    /// (a newer daemon's event an older client does not know is `unknownEvent`, which a client may skip).
    public init(_ event: ControlEvent) throws(WatchMessageError) {
        guard let name = WatchEvent(rawValue: event.name) else {
            throw WatchMessageError(.unknownEvent, "unknown watch event '\(event.name)'")
        }
        try self.init(name, fields: WatchFields.tree(.object(event.fields)), event: event.name)
    }

    /// Where an event's fields are decoded from: its parsed tree, or its line's text (`init(line:)`).
    enum WatchFields {
        case tree(JSONValue)
        case text([UInt8])

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            switch self {
            case .tree(let value): try JSONBridge.decode(type, from: value)
            case .text(let bytes): try JSONBridge.decode(type, text: bytes)
            }
        }
    }

    /// The event `name` with its payload decoded from `fields`; a mismatch is `.malformed`, naming `event`.
    init(_ name: WatchEvent, fields: WatchFields, event: String) throws(WatchMessageError) {
        func decode<T: Decodable>(_ type: T.Type) throws(WatchMessageError) -> T {
            do {
                return try fields.decode(type)
            } catch {
                throw WatchMessageError(.malformed, "watch event '\(event)': \(error)")
            }
        }
        switch name {
        case .connected: self = .connected(try decode(WatchPayload.Connected.self))
        case .disconnected: self = .disconnected(try decode(WatchPayload.Disconnected.self))
        case .heartRate: self = .heartRate(try decode(WatchPayload.HeartRate.self))
        case .beats: self = .beats(try decode(WatchPayload.Beats.self))
        case .battery: self = .battery(try decode(WatchPayload.Battery.self))
        case .contact: self = .contact(try decode(WatchPayload.Contact.self))
        case .seriesFinished: self = .seriesFinished(try decode(WatchPayload.SeriesFinished.self))
        case .sessionStarted: self = .sessionStarted(try decode(WatchPayload.SessionChanged.self))
        case .sessionStopped: self = .sessionStopped(try decode(WatchPayload.SessionChanged.self))
        case .sessionEnded: self = .sessionEnded(try decode(WatchPayload.SessionEnded.self))
        case .dfaAlpha1: self = .dfaAlpha1(try decode(WatchPayload.DFAAlpha1.self))
        case .peopleChanged: self = .peopleChanged(try decode(WatchPayload.PeopleChanged.self))
        }
    }
}

extension WatchMessage {
    /// The typed event, or nil for an event this client does not know (a newer daemon's); malformed fields throw.
    public init?(knownEvent event: ControlEvent) throws(WatchMessageError) {
        guard WatchEvent(rawValue: event.name) != nil else { return nil }
        try self.init(event)
    }
}

/// Why a received `watch` event is not a `WatchMessage`.
public struct WatchMessageError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// A name this client does not know (a newer daemon's event).
        case unknownEvent = "unknown-event"
        /// A known name whose fields do not have its payload's shape.
        case malformed
    }
    public let code: Code
    public let detail: String

    public init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "\(code.rawValue): \(detail)" }
}
