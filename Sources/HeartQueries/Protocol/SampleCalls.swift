import Control
import Foundation
import HealthModel
import HeartStore
import Ingest

/// `series`: the samples in a scope, newest or oldest first; with `include_open` the daemon's open series too.
public enum SeriesCall: ControlCall {
    public static let method = ControlMethod.series

    public struct Params: Codable, Sendable, Hashable {
        /// `heartbeat`, `heart-rate`, `energy`, `hrv` or a HealthKit identifier.
        public var type: String?
        public var device: String?
        public var from: QueryDate?
        public var to: QueryDate?
        /// Default 1000.
        public var limit: Int?
        /// `newest` for newest first.
        public var order: String?
        /// A session's UUID: the series recorded in it.
        public var session: String?
        public var metadata: [String: AllowedValues]?
        public var includeOpen: Bool?
        /// The previous page's `next`: this page starts after it (keyset paging, one indexed seek however deep).
        public var cursor: String?

        public init(type: String? = nil, device: String? = nil, from: QueryDate? = nil, to: QueryDate? = nil, limit: Int? = nil,
                    order: String? = nil, session: String? = nil, metadata: [String: AllowedValues]? = nil,
                    includeOpen: Bool? = nil, cursor: String? = nil) {
            self.type = type
            self.device = device
            self.from = from
            self.to = to
            self.limit = limit
            self.order = order
            self.session = session
            self.metadata = metadata
            self.includeOpen = includeOpen
            self.cursor = cursor
        }

        enum CodingKeys: String, CodingKey {
            case type, device, from, to, limit, order, session, metadata, includeOpen = "include_open", cursor
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var samples: [Listed]
        /// With `include_open`: how many of `samples` are open series (listed on the last page only).
        public var open: Int?
        /// The `cursor` of the next page; absent on the last page.
        public var next: String?

        public init(samples: [Listed], open: Int? = nil, next: String? = nil) {
            self.samples = samples
            self.open = open
            self.next = next
        }
    }

    /// A sample's summary as `series` lists it; `open` is true for a series still being captured.
    public struct Listed: Codable, Sendable, Hashable {
        public var summary: SampleSummary
        public var open: Bool?

        public init(_ summary: SampleSummary, open: Bool? = nil) {
            self.summary = summary
            self.open = open
        }

        enum CodingKeys: String, CodingKey { case open }

        public init(from decoder: any Decoder) throws {
            summary = try SampleSummary(from: decoder)
            open = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Bool.self, forKey: .open)
        }

        public func encode(to encoder: any Encoder) throws {
            try summary.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(open, forKey: .open)
        }
    }
}

/// `show`: one sample with its device, metadata and contents.
public enum ShowCall: ControlCall {
    public static let method = ControlMethod.show
    public typealias Params = UUIDParams
    public typealias Result = ExportedSample
}

/// `beats`: the beats of one heartbeat series (stored, or open in the daemon).
public enum BeatsCall: ControlCall {
    public static let method = ControlMethod.beats
    public typealias Params = UUIDParams

    public struct Result: Codable, Sendable, Hashable {
        public var uuid: UUID
        public var start: Date
        /// The address; `null` on the wire when the series has none.
        public var device: String?
        public var beats: [Row]
        /// True for a series still being captured.
        public var open: Bool?

        public init(uuid: UUID, start: Date, device: String?, beats: [Row], open: Bool? = nil) {
            self.uuid = uuid
            self.start = start
            self.device = device
            self.beats = beats
            self.open = open
        }

        public init(_ series: HeartbeatSeriesSample, open: Bool? = nil) {
            self.init(uuid: series.uuid, start: series.start, device: series.device?.localIdentifier,
                      beats: series.beats.map { Row(offset: $0.offset, precededByGap: $0.precededByGap) }, open: open)
        }

        enum CodingKeys: String, CodingKey { case uuid, start, device, beats, open }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(uuid, forKey: .uuid)
            try c.encode(start, forKey: .start)
            try c.encode(device, forKey: .device)
            try c.encode(beats, forKey: .beats)
            try c.encodeIfPresent(open, forKey: .open)
        }
    }

    /// One beat: `[offset seconds, precededByGap]` on the wire.
    public struct Row: Codable, Sendable, Hashable {
        public var offset: Double
        public var precededByGap: Bool

        public init(offset: Double, precededByGap: Bool) {
            self.offset = offset
            self.precededByGap = precededByGap
        }

        public init(from decoder: any Decoder) throws {
            var c = try decoder.unkeyedContainer()
            offset = try c.decode(Double.self)
            precededByGap = try c.decode(Bool.self)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.unkeyedContainer()
            try c.encode(offset)
            try c.encode(precededByGap)
        }
    }
}

/// `changes`: samples added and deleted since an anchor (HealthKit's anchored query).
public enum ChangesCall: ControlCall {
    public static let method = ControlMethod.changes
    public typealias Result = SampleChanges

    public struct Params: Codable, Sendable, Hashable {
        /// Default 0: everything.
        public var anchor: Int64?
        /// Default 1000.
        public var limit: Int?

        public init(anchor: Int64? = nil, limit: Int? = nil) {
            self.anchor = anchor
            self.limit = limit
        }
    }
}

/// `devices`: the devices the store has data from, and (from the daemon) the pipeline's live view.
public enum DevicesCall: ControlCall {
    public static let method = ControlMethod.devices
    public typealias Params = NoParams

    public struct Result: Codable, Sendable, Hashable {
        public var devices: [Stored]
        /// `status.devices`; only from the daemon.
        public var live: [DeviceStatus]?

        public init(devices: [Stored], live: [DeviceStatus]? = nil) {
            self.devices = devices
            self.live = live
        }
    }

    /// A device as the store keeps it.
    public struct Stored: Codable, Sendable, Hashable {
        public var address: String?
        public var info: DeviceInfo
        public var firstSeen: Date
        public var lastSeen: Date

        public init(_ record: DeviceRecord) {
            address = record.address
            info = record.info
            firstSeen = record.firstSeen
            lastSeen = record.lastSeen
        }
    }
}

/// `delete`: one sample, leaving a tombstone for sync.
public enum DeleteCall: ControlCall {
    public static let method = ControlMethod.delete
    public typealias Params = UUIDParams

    public struct Result: Codable, Sendable, Hashable {
        public var deleted: Bool

        public init(deleted: Bool) { self.deleted = deleted }
    }
}
