/// A plain text table with left-aligned columns, like `systemctl list-units`.
struct Table {
    let headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) {
        self.headers = headers
    }

    init(_ headers: [String]) {
        self.headers = headers
    }

    mutating func add(_ cells: [String]) {
        rows.append(cells)
    }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in
                i == cells.count - 1 ? c : c.padding(toLength: widths[i], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([line(headers)] + rows.map(line)).joined(separator: "\n")
    }
}

extension JSONValue {
    /// A cell for a table: strings as they are, numbers rounded to a sensible precision, null as `-`.
    var cell: String {
        switch self {
        case .null: "-"
        case .bool(let b): b ? "yes" : "no"
        case .int(let i): String(i)
        case .double(let d): d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(format: "%.1f", d)
        case .string(let s): s
        case .array(let a): a.map(\.cell).joined(separator: ",")
        case .object: "{…}"
        }
    }
}

import Control
import Foundation
