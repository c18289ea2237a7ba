import Foundation

/// Builds one heartbeat series: beats as offsets from the series start, strictly increasing,
/// each with `precededByGap`. Refuses beats out of order and past `maximumCount`
/// (HealthKit's limit is 1000; the ingest pipeline rotates into a new series before that).
public struct HeartbeatSeriesBuilder: Sendable {
    public static let defaultMaximumCount = 1000

    public let start: Date
    public let maximumCount: Int
    public var device: DeviceInfo?
    public var metadata: Metadata
    public let uuid: UUID
    public private(set) var beats: [Beat] = []
    private var isFinished = false

    /// `maximumCount` below 1 is treated as 1.
    public init(start: Date, maximumCount: Int = HeartbeatSeriesBuilder.defaultMaximumCount,
                device: DeviceInfo?, metadata: Metadata = [:], uuid: UUID = UUID()) {
        // A configured maximum below 1 must not trap the daemon: it is raised to 1.
        self.start = start
        self.maximumCount = max(1, maximumCount)
        self.device = device
        self.metadata = metadata
        self.uuid = uuid
        beats.reserveCapacity(min(self.maximumCount, 4096))
    }

    public var count: Int { beats.count }
    public var isFull: Bool { beats.count >= maximumCount }
    public var lastOffset: TimeInterval? { beats.last?.offset }

    /// Adds a beat at `offset` seconds after the series start.
    public mutating func addBeat(at offset: TimeInterval, precededByGap: Bool) throws(SeriesBuilderError) {
        guard !isFinished else { throw SeriesBuilderError(.finished, "the series is finished") }
        guard offset.isFinite else { throw SeriesBuilderError(.notFinite, "offset \(offset) is not finite") }
        guard offset >= 0 else {
            throw SeriesBuilderError(.beforeSeriesStart, "beat offset \(offset) s is before the series start")
        }
        if let last = beats.last, offset <= last.offset {
            throw SeriesBuilderError(.outOfOrder, "beat offset \(offset) s is not after the previous beat at \(last.offset) s")
        }
        guard beats.count < maximumCount else {
            throw SeriesBuilderError(.full, "the series already holds its maximum of \(maximumCount) beats")
        }
        beats.append(Beat(offset: offset, precededByGap: precededByGap))
    }

    /// Finishes the series. Returns nil when it holds no beat. `end = start + last beat offset`.
    public mutating func finish(metadata extra: Metadata = [:]) -> HeartbeatSeriesSample? {
        isFinished = true
        guard let last = beats.last else { return nil }
        return HeartbeatSeriesSample(
            uuid: uuid, start: start, end: start.addingTimeInterval(last.offset), beats: beats,
            device: device, metadata: metadata.merging(extra) { _, new in new })
    }
}
