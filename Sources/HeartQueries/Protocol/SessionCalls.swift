import Control
import Foundation
import HealthModel

/// `session.start`: a labelled block of heart data, stored at once. Result: the session.
public enum SessionStartCall: ControlCall {
    public static let method = ControlMethod.sessionStart
    public typealias Result = Session

    public struct Params: Codable, Sendable, Hashable {
        public var label: String?
        /// The addresses it covers; empty = every sensor.
        public var devices: [String]?
        public var metadata: Metadata?
        /// Default now.
        public var start: QueryDate?
        /// Default a new one.
        public var uuid: String?

        public init(label: String? = nil, devices: [String]? = nil, metadata: Metadata? = nil, start: QueryDate? = nil,
                    uuid: String? = nil) {
            self.label = label
            self.devices = devices
            self.metadata = metadata
            self.start = start
            self.uuid = uuid
        }
    }
}

/// `session.stop`: ends a session (default the only active one) and stores its statistics. Result: the session.
public enum SessionStopCall: ControlCall {
    public static let method = ControlMethod.sessionStop
    public typealias Result = Session

    public struct Params: Codable, Sendable, Hashable {
        public var uuid: String?
        /// Default now.
        public var end: QueryDate?

        public init(uuid: String? = nil, end: QueryDate? = nil) {
            self.uuid = uuid
            self.end = end
        }
    }
}

/// `sessions`: the sessions in a range, oldest first.
public enum SessionsCall: ControlCall {
    public static let method = ControlMethod.sessions

    public struct Params: Codable, Sendable, Hashable {
        /// Sessions still running at or after it.
        public var from: QueryDate?
        /// Sessions starting before it.
        public var to: QueryDate?
        public var label: String?
        /// Only active ones.
        public var active: Bool?
        public var metadata: [String: AllowedValues]?
        /// Default 1000.
        public var limit: Int?

        public init(from: QueryDate? = nil, to: QueryDate? = nil, label: String? = nil, active: Bool? = nil,
                    metadata: [String: AllowedValues]? = nil, limit: Int? = nil) {
            self.from = from
            self.to = to
            self.label = label
            self.active = active
            self.metadata = metadata
            self.limit = limit
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var sessions: [Session]

        public init(sessions: [Session]) { self.sessions = sessions }
    }
}

/// `session.show`: one session; an active one with its statistics so far.
public enum SessionShowCall: ControlCall {
    public static let method = ControlMethod.sessionShow
    public typealias Params = UUIDParams
    public typealias Result = Session
}
