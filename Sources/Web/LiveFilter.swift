import Foundation
import Hummingbird
import SourceEvents

/// What one live client (`/api/live`, `/api/events`) asked for in its query string: `beats=1` adds every
/// notification's `beats` message (most screens need only `device` messages: one per notification instead of two),
/// `device=ADDRESS` keeps only that sensor's `device` and `beats` messages (an overlay). Session and daemon messages
/// reach every client.
public struct LiveFilter: Sendable, Hashable {
    public var beats: Bool
    /// Upper-case address, or nil for every sensor.
    public var device: String?

    public init(beats: Bool = false, device: String? = nil) {
        self.beats = beats
        self.device = device?.uppercased()
    }

    public static let everything = LiveFilter(beats: true)

    /// From the request's query: `beats` is `1`/`true`; `device` must be a Bluetooth address (else 400).
    public init(query: [String: String]) throws {
        let beats = query["beats"].map { ["1", "true", "yes"].contains($0.lowercased()) } ?? false
        var device: String?
        if let value = query["device"], !value.isEmpty {
            guard DeviceAddress.isValid(value) else {
                throw HTTPError(.badRequest, message: "device must be a Bluetooth address such as A0:9E:1A:12:34:56")
            }
            device = value
        }
        self.init(beats: beats, device: device)
    }

    /// Whether a message goes to this client.
    func admits(_ message: LiveMessage) -> Bool {
        switch message {
        case .beats(let address, _):
            return beats && (device == nil || device == address.uppercased())
        case .device(let view):
            return device == nil || device == view.address.uppercased()
        case .snapshot, .daemon, .sessions, .sessionStarted, .sessionStopped:
            return true
        }
    }
}
