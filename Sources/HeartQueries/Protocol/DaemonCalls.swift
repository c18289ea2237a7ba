import Control
import Foundation

/// `status`: the daemon's live state (`DaemonStatus`).
public enum StatusCall: ControlCall {
    public static let method = ControlMethod.status
    public typealias Params = NoParams
    public typealias Result = DaemonStatus
}

/// `watch` (streaming): live events (`WatchEvent`) of every device, one device, or one active session's.
public enum WatchCall: ControlCall {
    public static let method = ControlMethod.watch
    public typealias Result = StreamStarted

    public struct Params: Codable, Sendable, Hashable {
        public var device: String?
        /// An active session's UUID: its devices' events, and `session-ended` when it stops (which ends the stream).
        public var session: String?

        public init(device: String? = nil, session: String? = nil) {
            self.device = device
            self.session = session
        }
    }
}

/// `subscribe` (streaming): the store's changes (`ChangeEvent`) as they are saved, each with its anchor.
public enum SubscribeCall: ControlCall {
    public static let method = ControlMethod.subscribe
    public typealias Result = StreamStarted

    public struct Params: Codable, Sendable, Hashable {
        /// An anchor (0 = everything); default the current one: only what is saved from now on.
        public var since: Int64?

        public init(since: Int64? = nil) { self.since = since }
    }
}

/// `export` (streaming): a file's text in `chunk` events, `progress`, then `end` or `error`.
public enum ExportCall: ControlCall {
    public static let method = ControlMethod.export
    public typealias Result = StreamStarted

    public typealias Params = RangeQuery<Options>

    public struct Options: Codable, Sendable, Hashable {
        /// Default `csv`.
        public var format: ExportFormat?

        public init(format: ExportFormat? = nil) { self.format = format }
    }
}

/// `allow`: capture a device and keep it on the allow-list.
public enum AllowCall: ControlCall {
    public static let method = ControlMethod.allow
    public typealias Params = AddressParams

    public struct Result: Codable, Sendable, Hashable {
        public var allowed: String

        public init(allowed: String) { self.allowed = allowed }
    }
}

/// `forget`: stop capturing a device; its data is kept.
public enum ForgetCall: ControlCall {
    public static let method = ControlMethod.forget
    public typealias Params = AddressParams

    public struct Result: Codable, Sendable, Hashable {
        public var forgotten: String

        public init(forgotten: String) { self.forgotten = forgotten }
    }
}
