/// Whether a figure meets its target.
enum Verdict: Sendable {
    case met
    case missed
    /// No target: the figure is for information.
    case info

    init(_ ok: Bool) { self = ok ? .met : .missed }

    var cell: String {
        switch self {
        case .met: "yes"
        case .missed: "**NO — missed**"
        case .info: "—"
        }
    }
}

/// One line of a results table.
struct BenchmarkRow: Sendable {
    var metric: String
    var heartd: String
    var baseline: String
    var target: String
    var verdict: Verdict
}

/// The figures of one run, rendered as a markdown table (metric | heartd | naive/baseline | target | ok?),
/// with free-form notes underneath (counts, checksums, how each figure was taken).
struct ResultTable: Sendable {
    private(set) var rows: [BenchmarkRow] = []
    private(set) var notes: [String] = []

    mutating func add(_ metric: String, heartd: String, baseline: String = "—", target: String = "—",
                      verdict: Verdict = .info) {
        rows.append(BenchmarkRow(metric: metric, heartd: heartd, baseline: baseline, target: target, verdict: verdict))
    }

    mutating func note(_ text: String) { notes.append(text) }

    var missedCount: Int { rows.filter { if case .missed = $0.verdict { true } else { false } }.count }

    func markdown() -> String {
        var lines = ["| metric | heartd | naive / baseline | target | ok? |", "|---|---:|---:|---|---|"]
        for row in rows {
            lines.append("| \(row.metric) | \(row.heartd) | \(row.baseline) | \(row.target) | \(row.verdict.cell) |")
        }
        if !notes.isEmpty {
            lines.append("")
            lines += notes.map { "- \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
