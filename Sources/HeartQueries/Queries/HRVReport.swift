import Control
import HealthModel

/// The JSON shape of HRV results, the same for `heartctl hrv --rr-file`, the control socket and `--db`.
public enum HRVReport {
    public static func json(_ m: HRVMetrics) -> JSONValue {
        .object([
            "count": .int(m.count),
            "sdnn_ms": .double(m.sdnnMs),
            "rmssd_ms": m.rmssdMs.map(JSONValue.double) ?? .null,
            "pnn50_pct": m.pnn50Percent.map(JSONValue.double) ?? .null,
            "mean_hr_bpm": .double(m.meanHeartRateBpm),
        ])
    }
}
