import Foundation

extension HeartbeatSeriesSample {
    /// The HRV SDNN sample derived from this finished series: type `.heartRateVariabilitySDNN` (ms), one point
    /// spanning the series [start, end] with the SDNN of its beats (`HRVMetrics(beats:)`: all in-segment RR
    /// intervals, none across a gap), the same device, and `metadata[MetadataKey.derivedFromSeries]` = the
    /// series UUID. No other series metadata is copied (a sync identifier must not be shared).
    /// Returns nil when the series has fewer than 2 RR intervals.
    public func derivedHRVSample(uuid: UUID = UUID()) -> QuantitySample? {
        guard let metrics = try? HRVMetrics(beats: beats) else { return nil }
        let point = QuantityPoint(value: metrics.sdnnMs, start: start, end: end)
        let type = QuantityType.heartRateVariabilitySDNN
        return QuantitySample(
            uuid: uuid, type: type, start: start, end: end, points: [point],
            aggregates: QuantityAggregates(points: [point], style: type.aggregation),
            device: device, metadata: [MetadataKey.derivedFromSeries: self.uuid.uuidString])
    }
}
