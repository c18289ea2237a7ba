import Control
import Foundation
import HealthModel

/// The scope of a range method (`quantities`, `stats`, `hrv`, `export`): `from` (default `to` − 1 day), `to`
/// (default now), `device`, `session` (a UUID; without `from`/`to` its span) and `metadata`.
public struct RangeParams: Codable, Sendable, Hashable {
    public var from: QueryDate?
    public var to: QueryDate?
    public var device: String?
    public var session: String?
    public var metadata: [String: AllowedValues]?

    public init(from: QueryDate? = nil, to: QueryDate? = nil, device: String? = nil, session: String? = nil,
                metadata: [String: AllowedValues]? = nil) {
        self.from = from
        self.to = to
        self.device = device
        self.session = session
        self.metadata = metadata
    }
}

/// The params of a range method: its `RangeParams` and its own `Options`, side by side in one JSON object.
@dynamicMemberLookup
public struct RangeQuery<Options: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var options: Options
    public var range: RangeParams

    public init(_ options: Options, range: RangeParams = RangeParams()) {
        self.options = options
        self.range = range
    }

    public subscript<T>(dynamicMember key: WritableKeyPath<Options, T>) -> T {
        get { options[keyPath: key] }
        set { options[keyPath: key] = newValue }
    }

    public init(from decoder: any Decoder) throws {
        options = try Options(from: decoder)
        range = try RangeParams(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try range.encode(to: encoder)
        try options.encode(to: encoder)
    }
}

/// `quantities`: the points of one quantity type in a range.
public enum QuantitiesCall: ControlCall {
    public static let method = ControlMethod.quantities

    public typealias Params = RangeQuery<Options>

    public struct Options: Codable, Sendable, Hashable {
        /// Default `heart-rate`.
        public var type: String?

        public init(type: String? = nil) { self.type = type }
    }

    public struct Result: Codable, Sendable, Hashable {
        /// The short name (`heart-rate`) and unit (`count/min`).
        public var type: String
        public var unit: String
        public var points: [QuantityPoint]

        public init(type: String, unit: String, points: [QuantityPoint]) {
            self.type = type
            self.unit = unit
            self.points = points
        }
    }
}

/// `stats`: statistics over a range, or buckets of `interval` seconds aligned to `anchor`; per device too.
public enum StatsCall: ControlCall {
    public static let method = ControlMethod.stats

    public typealias Params = RangeQuery<Options>

    public struct Options: Codable, Sendable, Hashable {
        /// Default `heart-rate`.
        public var type: String?
        /// Seconds; with it, buckets.
        public var interval: Double?
        /// Default: the start of `from`'s UTC day.
        public var anchor: QueryDate?
        public var byDevice: Bool?

        public init(type: String? = nil, interval: Double? = nil, anchor: QueryDate? = nil, byDevice: Bool? = nil) {
            self.type = type
            self.interval = interval
            self.anchor = anchor
            self.byDevice = byDevice
        }

        enum CodingKeys: String, CodingKey { case type, interval, anchor, byDevice = "by_device" }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var type: String
        public var unit: String
        /// Without `interval`: the statistics of the range.
        public var statistics: QuantityStatistics?
        /// With `interval`: one per bucket, with its `anchor` and `interval`.
        public var buckets: [QuantityStatistics]?
        public var anchor: Date?
        public var interval: Double?
        /// With `by_device`: one entry per device with values in range.
        public var devices: [Device]?
        /// From the daemon (and `--db`): the series of the scope still being captured, left out.
        public var openSeries: Int?

        public init(type: String, unit: String, statistics: QuantityStatistics? = nil, buckets: [QuantityStatistics]? = nil,
                    anchor: Date? = nil, interval: Double? = nil, devices: [Device]? = nil, openSeries: Int? = nil) {
            self.type = type
            self.unit = unit
            self.statistics = statistics
            self.buckets = buckets
            self.anchor = anchor
            self.interval = interval
            self.devices = devices
            self.openSeries = openSeries
        }

        enum CodingKeys: String, CodingKey {
            case type, unit, statistics, buckets, anchor, interval, devices, openSeries = "open_series"
        }
    }

    /// `devices[]`: one device's statistics or buckets; `name` is `null` on the wire when the store has none.
    public struct Device: Codable, Sendable, Hashable {
        public var device: String
        public var name: String?
        public var statistics: QuantityStatistics?
        public var buckets: [QuantityStatistics]?

        public init(device: String, name: String?, statistics: QuantityStatistics? = nil, buckets: [QuantityStatistics]? = nil) {
            self.device = device
            self.name = name
            self.statistics = statistics
            self.buckets = buckets
        }

        enum CodingKeys: String, CodingKey { case device, name, statistics, buckets }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(device, forKey: .device)
            try c.encode(name, forKey: .name)
            try c.encodeIfPresent(statistics, forKey: .statistics)
            try c.encodeIfPresent(buckets, forKey: .buckets)
        }
    }
}

/// `hrv`: HRV of one heartbeat series (`uuid`) or of every series in a range, never across a gap: the time domain
/// of the recorded RR chain, and `analysis` (`HRVAnalysis`): artifacts classified and corrected, then the time
/// domain, Poincaré and DFA of the corrected NN intervals.
public enum HRVCall: ControlCall {
    public static let method = ControlMethod.hrv

    public typealias Params = RangeQuery<Options>

    public struct Options: Codable, Sendable, Hashable {
        /// One heartbeat series; without it, the range.
        public var uuid: String?

        public init(uuid: String? = nil) { self.uuid = uuid }
    }

    /// A time-domain measure of `Result`, by its key.
    public enum Measure: String, Codable, Sendable, Hashable, CaseIterable {
        case count, sdnnMs = "sdnn_ms", rmssdMs = "rmssd_ms", pnn50Percent = "pnn50_pct", meanHeartRateBpm = "mean_hr_bpm"
    }

    /// The same shape for `heartctl hrv --rr-file`; `rmssd_ms` and `pnn50_pct` are `null` with too few intervals.
    /// The top-level figures are of the RR chain as recorded (uncorrected); `analysis` carries the corrected ones.
    public struct Result: Codable, Sendable, Hashable {
        public var count: Int
        public var sdnnMs: Double
        public var rmssdMs: Double?
        public var pnn50Percent: Double?
        public var meanHeartRateBpm: Double
        /// Artifacts and the measures of the corrected NN intervals; absent from an older daemon.
        public var analysis: HRVAnalysis?
        /// The measures computed from the store's hourly sums (`hrv_hourly`) rather than from the beats: over a
        /// range of more beats than `HRVRange.analysisBeatLimit` (where `analysis` is absent anyway). Absent otherwise.
        public var rolledUp: [Measure]?

        public init(_ m: HRVMetrics, analysis: HRVAnalysis? = nil) {
            count = m.count
            sdnnMs = m.sdnnMs
            rmssdMs = m.rmssdMs
            pnn50Percent = m.pnn50Percent
            meanHeartRateBpm = m.meanHeartRateBpm
            self.analysis = analysis
        }

        enum CodingKeys: String, CodingKey {
            case count, sdnnMs = "sdnn_ms", rmssdMs = "rmssd_ms", pnn50Percent = "pnn50_pct", meanHeartRateBpm = "mean_hr_bpm",
                 analysis, rolledUp = "rolled_up"
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(count, forKey: .count)
            try c.encode(sdnnMs, forKey: .sdnnMs)
            try c.encode(rmssdMs, forKey: .rmssdMs)
            try c.encode(pnn50Percent, forKey: .pnn50Percent)
            try c.encode(meanHeartRateBpm, forKey: .meanHeartRateBpm)
            try c.encodeIfPresent(analysis, forKey: .analysis)
            try c.encodeIfPresent(rolledUp, forKey: .rolledUp)
        }
    }
}

/// `report`: one self-contained HTML page for a session or a range.
public enum ReportCall: ControlCall {
    public static let method = ControlMethod.report

    public struct Params: Codable, Sendable, Hashable {
        /// A session's UUID; not with `from`, `to` or `device`.
        public var session: String?
        public var from: QueryDate?
        public var to: QueryDate?
        public var device: String?

        public init(session: String? = nil, from: QueryDate? = nil, to: QueryDate? = nil, device: String? = nil) {
            self.session = session
            self.from = from
            self.to = to
            self.device = device
        }
    }

    public struct Result: Codable, Sendable, Hashable {
        public var html: String
        public var bytes: Int
        /// How many devices it shows, and their beats.
        public var devices: Int
        public var beats: Int

        public init(html: String, devices: Int, beats: Int) {
            self.html = html
            bytes = html.utf8.count
            self.devices = devices
            self.beats = beats
        }
    }
}
