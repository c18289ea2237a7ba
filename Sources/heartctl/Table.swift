import Control
import Foundation

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

    /// The table as lines joined by newlines; without `header`, the rows alone (a later page of a listing).
    func render(header: Bool = true) -> String {
        // Each cell's width once (a listing's page is 9,000 cells): its bytes when ASCII, else its characters.
        var cellWidths: [Int] = []
        cellWidths.reserveCapacity(rows.count * headers.count)
        var widths = headers.map(Self.width)
        for row in rows {
            for (i, cell) in row.enumerated() {
                let w = Self.width(cell)
                cellWidths.append(w)
                if i < widths.count { widths[i] = max(widths[i], w) }
            }
        }
        var out = ""
        out.reserveCapacity((widths.reduce(0, +) + 2 * widths.count + 1) * (rows.count + 1))
        func line(_ cells: [String], _ cellWidth: (Int) -> Int) {
            if !out.isEmpty { out += "\n" }
            for (i, cell) in cells.enumerated() {
                if i > 0 { out += "  " }
                out += cell
                // Padded with spaces to its column's width; the last cell is not.
                if i < cells.count - 1, i < widths.count {
                    let pad = widths[i] - cellWidth(i)
                    if pad > 0 { out += String(repeating: " ", count: pad) }
                }
            }
        }
        if header { line(headers) { Self.width(headers[$0]) } }
        var next = 0
        for row in rows {
            let first = next
            line(row) { cellWidths[first + $0] }
            next += row.count
        }
        return out
    }

    /// The columns `cell` takes: its bytes when it is ASCII (nearly every cell), else its characters.
    static func width(_ cell: String) -> Int {
        cell.utf8.allSatisfy { $0 < 0x80 } ? cell.utf8.count : cell.count
    }

    /// A number for a cell: whole numbers as integers, others to one decimal (as `%.1f`), nil as `-`.
    static func number(_ value: Double?) -> String {
        guard let d = value else { return "-" }
        if d == d.rounded() && abs(d) < 1e15 { return String(Int64(d)) }
        // One decimal without `String(format:)` (slow per cell): exact unless d·10 is near a half, which `%.1f` rounds
        // by d's exact binary value.
        let scaled = d * 10
        let fraction = abs(scaled - scaled.rounded(.down))
        guard d.isFinite, abs(d) < 1e12, abs(fraction - 0.5) > 1e-6 else { return String(format: "%.1f", d) }
        let tenths = Int64(abs(scaled).rounded())
        return (d.sign == .minus ? "-" : "") + String(tenths / 10) + "." + String(tenths % 10)
    }
}

extension JSONValue {
    /// A cell for a table: strings as they are, numbers rounded to a sensible precision, null as `-`.
    var cell: String {
        switch self {
        case .null: "-"
        case .bool(let b): b ? "yes" : "no"
        case .int(let i): String(i)
        case .double(let d): Table.number(d)
        case .string(let s): s
        case .array(let a): a.map(\.cell).joined(separator: ",")
        case .object: "{…}"
        }
    }
}
