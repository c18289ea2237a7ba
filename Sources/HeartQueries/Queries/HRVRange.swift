import Control
import HealthModel
import HeartStore

/// HRV over a range fed one heartbeat series at a time (the store's cursor, or the central database's streamed
/// rows): running sums (`HRVAccumulator`), each series its own segments, and the beats kept for the full analysis
/// up to `analysisBeatLimit` — so months of beats are never in memory together.
public struct HRVRange: Sendable {
    /// The most beats of a range whose full analysis (`HRVAnalysis`: artifacts, corrected time domain, Poincaré,
    /// DFA, frequency) is computed, about five days of one strap (~8 MB of beats in memory); beyond it only the
    /// streamed time domain of the chain as recorded is (`analysis` is null): ask per session or per series.
    public static let analysisBeatLimit = 500_000

    private var accumulator = HRVAccumulator()
    private var kept: [Beat]? = []

    public init() {}

    public mutating func add(_ s: HeartbeatSeriesSample) {
        accumulator.add(beats: s.beats)
        guard let count = kept?.count else { return }
        if count + s.beats.count > Self.analysisBeatLimit {
            kept = nil
        } else {
            // Each series starts a new segment: its first beat is flagged so no RR spans two series.
            kept?.append(contentsOf: s.beats.enumerated().map { i, b in
                Beat(offset: b.offset, precededByGap: b.precededByGap || i == 0)
            })
        }
    }

    /// The time domain from hourly sums kept elsewhere (the central database's `hrv_hourly`), as `hrv` over a range
    /// past `analysisBeatLimit` answers from the store's own: no analysis, every measure `rolled_up`.
    public static func rolledUp(_ sums: HeartbeatHourSums) throws(ControlError) -> HRVCall.Result {
        var accumulator = HRVAccumulator()
        accumulator.merge(sums)
        do {
            var result = HRVCall.Result(try accumulator.metrics())
            result.rolledUp = HRVCall.Measure.allCases
            return result
        } catch {
            throw ControlError(.notFound, "not enough beats for HRV: \(error)")
        }
    }

    /// The metrics, and the analysis when the range's beats were kept; `not-found` with too few beats.
    public func result() throws(ControlError) -> HRVCall.Result {
        do {
            return HRVCall.Result(try accumulator.metrics(), analysis: try kept.map { beats throws(HRVError) in try HRVAnalysis(beats: beats) })
        } catch {
            throw ControlError(.notFound, "not enough beats for HRV: \(error)")
        }
    }
}
