import Foundation
import HealthModel

/// The formats `heartctl export` writes. Every exporter streams: it gets samples in start order and
/// hands text to `emit` as it goes, so a month of data never sits in memory as one string.
public enum ExportFormat: String, CaseIterable, Sendable, Codable {
    /// One row per quantity point or beat: `kind,series,start,end,value,unit,preceded_by_gap,device`.
    case csv
    /// One JSON object per sample, with its points or beats.
    case jsonl
    /// One RR interval in ms per line (Kubios and most HRV tools read this); never across a gap.
    case rr
    /// Apple Health `export.xml` records for heart rate and HRV (with InstantaneousBeatsPerMinute).
    case healthkitXML = "healthkit-xml"
    /// A Garmin FIT activity file: heart rate per second, RR intervals in `hrv` messages, laps and the session.
    case fit

    /// Binary formats emit base64 text, carried in `chunk` events as `base64` instead of `text`.
    public var isBinary: Bool { self == .fit }
}

/// A streaming exporter: `begin`, then `write` for each sample in start order, then `end`.
public protocol SampleExporter {
    mutating func begin(emit: (String) -> Void)
    mutating func write(_ sample: Sample, emit: (String) -> Void) throws(ExportError)
    mutating func end(emit: (String) -> Void)
}

public struct ExportError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// The `rr` format needs one device: RR intervals of two sensors interleaved would be nonsense.
        case ambiguousDevice = "ambiguous-device"
    }
    public let code: Code
    public let detail: String
    public var description: String { "\(code.rawValue): \(detail)" }
}

extension ExportFormat {
    public func makeExporter(exportDate: Date = Date()) -> any SampleExporter {
        switch self {
        case .csv: CSVExporter()
        case .jsonl: JSONLinesExporter()
        case .rr: RRExporter()
        case .healthkitXML: HealthKitXMLExporter(exportDate: exportDate)
        case .fit: FITExporter()
        }
    }
}
