import Foundation
import HealthModel

/// One row per quantity point or beat. Beats have `start == end` (the beat's absolute time) and the value is
/// the offset in seconds from the series start.
struct CSVExporter: SampleExporter {
    mutating func begin(emit: (String) -> Void) {
        emit("kind,series,start,end,value,unit,preceded_by_gap,device\n")
    }

    mutating func write(_ sample: Sample, emit: (String) -> Void) throws(ExportError) {
        let device = CSVExporter.field(sample.device?.localIdentifier ?? "")
        switch sample {
        case .quantity(let q):
            let kind = q.type.shortName, unit = q.type.unit.rawValue, id = q.uuid.uuidString
            for p in q.points {
                emit("\(kind),\(id),\(ExportDates.iso(p.start)),\(ExportDates.iso(p.end)),\(CSVExporter.number(p.value)),\(unit),,\(device)\n")
            }
        case .heartbeatSeries(let s):
            let id = s.uuid.uuidString
            for b in s.beats {
                let t = ExportDates.iso(s.start.addingTimeInterval(b.offset))
                emit("beat,\(id),\(t),\(t),\(CSVExporter.number(b.offset)),s,\(b.precededByGap),\(device)\n")
            }
        }
    }

    mutating func end(emit: (String) -> Void) {}

    static func number(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }

    /// RFC 4180 quoting for fields that need it.
    static func field(_ s: String) -> String {
        guard s.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return s }
        return "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
