import Foundation
import HealthModel
import Ingest

/// The fields of each `watch` event (`WatchMessage`): the daemon encodes them, every client decodes the same types.
public enum WatchPayload {
    /// `connected`: `info` is the device's name, manufacturer, model, versions and metadata.
    public struct Connected: Codable, Sendable, Hashable {
        public var device: String
        public var at: Date
        public var info: DeviceInfo?

        public init(device: String, at: Date, info: DeviceInfo?) {
            self.device = device
            self.at = at
            self.info = info
        }
    }

    /// `disconnected`: `reason` as `DisconnectReason` describes it (`link-lost`, `silent-stop`, … or an error).
    public struct Disconnected: Codable, Sendable, Hashable {
        public var device: String
        public var at: Date
        public var reason: String

        public init(device: String, at: Date, reason: String) {
            self.device = device
            self.at = at
            self.reason = reason
        }
    }

    public struct HeartRate: Codable, Sendable, Hashable {
        public var device: String
        public var at: Date
        public var bpm: Int

        public init(device: String, at: Date, bpm: Int) {
            self.device = device
            self.at = at
            self.bpm = bpm
        }
    }

    /// `beats`: one notification's beats, each with its time and whether beats may be missing before it.
    public struct Beats: Codable, Sendable, Hashable {
        public var device: String
        public var beats: [Beat]

        public init(device: String, beats: [Beat]) {
            self.device = device
            self.beats = beats
        }
    }

    public struct Beat: Codable, Sendable, Hashable {
        public var time: Date
        public var gap: Bool

        public init(time: Date, gap: Bool) {
            self.time = time
            self.gap = gap
        }
    }

    public struct Battery: Codable, Sendable, Hashable {
        public var device: String
        public var at: Date
        public var percent: Int

        public init(device: String, at: Date, percent: Int) {
            self.device = device
            self.at = at
            self.percent = percent
        }
    }

    /// `contact`: `detected` false means the sensor reports no skin contact (its heart rate is not used).
    public struct Contact: Codable, Sendable, Hashable {
        public var device: String
        public var at: Date
        public var detected: Bool

        public init(device: String, at: Date, detected: Bool) {
            self.device = device
            self.at = at
            self.detected = detected
        }
    }

    /// `series-finished`: the sample was handed to the store writer.
    public struct SeriesFinished: Codable, Sendable, Hashable {
        public var device: String
        public var uuid: UUID
        public var type: String
        public var reason: FinishReason

        public init(device: String, uuid: UUID, type: String, reason: FinishReason) {
            self.device = device
            self.uuid = uuid
            self.type = type
            self.reason = reason
        }
    }

    /// `session-started` and `session-stopped`: the session as it is now.
    public struct SessionChanged: Codable, Sendable, Hashable {
        public var session: Session

        public init(session: Session) { self.session = session }
    }

    /// `session-ended`: the watched session stopped at `end`; the last event of a `watch` with `session`.
    public struct SessionEnded: Codable, Sendable, Hashable {
        public var session: UUID
        public var end: Date?

        public init(session: UUID, end: Date?) {
            self.session = session
            self.end = end
        }
    }

    /// `people-changed`: a person was added, changed or removed, or a strap assigned or released, at `at`; the
    /// devices' `person` in the next `status` says who wears what.
    public struct PeopleChanged: Codable, Sendable, Hashable {
        public var at: Date

        public init(at: Date) { self.at = at }
    }
}
