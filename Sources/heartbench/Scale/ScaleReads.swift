import Control
import Foundation
import HeartQueries

/// The range reads `heartbench scale` measures, each as `heartctl --db` runs it (a process: its wall time and
/// peak memory) and as a request on the daemon's socket (the daemon's peak memory during it), with the year's
/// target of issue 31 and the naive table's equivalent query (sqlite3 on one row per beat / per value).
struct ScaleRead {
    var name: String
    var heartctl: [String]
    var method: ControlMethod
    var params: [String: JSONValue]
    /// The target for a year of data (seconds); nil when the issue sets none.
    var yearTarget: Double?
    /// The naive table's query answering the same question; nil when there is none.
    var naiveSQL: String?

    static func all(store: String, from: Date, to: Date, report: String) -> [ScaleRead] {
        let f = iso(from), t = iso(to)
        let range: [String: JSONValue] = ["from": .string(f), "to": .string(t)]
        var perDay = range
        perDay["interval"] = .int(86_400)
        var firstPage = range
        firstPage["limit"] = .int(100)
        return [
            ScaleRead(name: "stats per day", heartctl: ["stats", "--db", store, "--from", f, "--to", t, "--interval", "1d"],
                      method: .stats, params: perDay, yearTarget: 1,
                      naiveSQL: "SELECT CAST(t / 86400 AS INT) AS d, MIN(bpm), AVG(bpm), MAX(bpm), COUNT(*) FROM hr GROUP BY d;"),
            ScaleRead(name: "hrv", heartctl: ["hrv", "--db", store, "--from", f, "--to", t], method: .hrv, params: range,
                      yearTarget: 2,
                      naiveSQL: "WITH r AS (SELECT (t - LAG(t) OVER (ORDER BY t)) * 1000 AS rr, gap FROM beat), "
                        + "d AS (SELECT rr, rr - LAG(rr) OVER () AS x FROM r WHERE gap = 0 AND rr IS NOT NULL) "
                        + "SELECT COUNT(*), SQRT(AVG(x * x)), AVG(rr) FROM d;"),
            ScaleRead(name: "report", heartctl: ["report", "--db", store, "--from", f, "--to", t, "-o", report],
                      method: .report, params: range, yearTarget: 5, naiveSQL: nil),
            ScaleRead(name: "series, first page (100)", heartctl: ["series", "--db", store, "--from", f, "--to", t, "--limit", "100"],
                      method: .series, params: firstPage, yearTarget: 0.1,
                      naiveSQL: "SELECT * FROM hr ORDER BY t LIMIT 100;"),
            ScaleRead(name: "series, every page", heartctl: ["series", "--db", store, "--from", f, "--to", t, "--all", "--limit", "1000"],
                      method: .series, params: [:], yearTarget: 2, naiveSQL: "SELECT * FROM hr ORDER BY t;"),
        ]
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
