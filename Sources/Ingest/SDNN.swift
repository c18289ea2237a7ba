import Foundation
import HealthModel

// TODO: switch to HealthModel's HRV functions once they land; this private copy keeps Ingest independent.

/// SDNN in milliseconds over the RR intervals inside gap-free segments of a heartbeat series: the interval
/// before a beat flagged `precededByGap` is not a real RR and is left out. Sample standard deviation (n − 1).
/// Nil with fewer than 2 intervals.
func sdnnMilliseconds(_ beats: [Beat]) -> Double? {
    var intervals: [Double] = []
    intervals.reserveCapacity(beats.count)
    for i in beats.indices.dropFirst() where !beats[i].precededByGap {
        intervals.append((beats[i].offset - beats[i - 1].offset) * 1000)
    }
    guard intervals.count >= 2 else { return nil }
    let mean = intervals.reduce(0, +) / Double(intervals.count)
    let squares = intervals.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
    return (squares / Double(intervals.count - 1)).squareRoot()
}

/// The HRV SDNN sample derived from a finished heartbeat series, or nil with fewer than 2 RR intervals.
func derivedSDNNSample(from series: HeartbeatSeriesSample, uuid: UUID, metadata: Metadata) -> QuantitySample? {
    guard let sdnn = sdnnMilliseconds(series.beats) else { return nil }
    let point = QuantityPoint(value: sdnn, start: series.start, end: series.end)
    var meta = metadata
    meta[MetadataKey.derivedFromSeries] = series.uuid.uuidString
    return QuantitySample(
        uuid: uuid, type: .heartRateVariabilitySDNN, start: series.start, end: series.end, points: [point],
        aggregates: QuantityAggregates(points: [point], style: .discreteArithmetic),
        device: series.device, metadata: meta)
}
