import Foundation
import HealthModel

/// What a report shows: a session (or a plain time range) with the data its devices stored in it. Read from the
/// store by `StoreQueries.reportData` (the `report` method); rendered by `ReportPage` without any I/O.
public struct ReportData: Sendable {
    /// The session reported on; nil for a plain range (`--from --to`).
    public var session: Session?
    public var from: Date
    public var to: Date
    /// The session's statistics (stored at its stop, or so far while active); for a range, `SessionStatistics`
    /// computed over it by the same model code.
    public var statistics: SessionStatistics
    public var devices: [ReportDevice]
    /// When the report was made (shown on the page).
    public var generated: Date
    /// For a range longer than `ReportTrend.threshold`: the trends drawn instead of beat-level plots (the devices
    /// then carry no points or series).
    public var trend: ReportTrend?
    /// The full HRV analysis of the range's beats (`HRVAnalysis`: artifacts found and corrected, corrected time
    /// domain, frequency domain, Poincaré, DFA), each series its own segments; nil for a trend or too few beats.
    public var hrv: HRVAnalysis?

    public init(session: Session?, from: Date, to: Date, statistics: SessionStatistics, devices: [ReportDevice],
                generated: Date, trend: ReportTrend? = nil, hrv: HRVAnalysis? = nil) {
        self.session = session
        self.from = from
        self.to = to
        self.statistics = statistics
        self.devices = devices
        self.generated = generated
        self.trend = trend
        self.hrv = hrv
    }

    var start: Double { from.timeIntervalSinceReferenceDate }
    var end: Double { to.timeIntervalSinceReferenceDate }
}

/// One device's data in the report: its stored description (HKDevice fields), heart-rate points and heartbeat
/// series overlapping the report's range.
public struct ReportDevice: Sendable {
    public var address: String
    /// nil when the store has no device record for the address (a session started ahead for a sensor never seen).
    public var info: DeviceInfo?
    /// Sorted by start.
    public var heartRate: [QuantityPoint]
    /// Sorted by start.
    public var series: [HeartbeatSeriesSample]

    public init(address: String, info: DeviceInfo?, heartRate: [QuantityPoint], series: [HeartbeatSeriesSample]) {
        self.address = address
        self.info = info
        self.heartRate = heartRate.sorted { $0.start < $1.start }
        self.series = series.sorted { $0.start < $1.start }
    }

    /// A name for legends: the device name, else its address.
    var displayName: String { info?.name.map { "\($0) (\(address))" } ?? address }
}
