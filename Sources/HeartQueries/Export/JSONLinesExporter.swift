import Foundation
import HealthModel

/// One JSON object per sample: the summary fields plus `points` or `beats`.
struct JSONLinesExporter: SampleExporter {
    private let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(ExportDates.iso(date))
        }
        return e
    }()

    mutating func begin(emit: (String) -> Void) {}

    mutating func write(_ sample: Sample, emit: (String) -> Void) throws(ExportError) {
        let line = ExportedSample(sample)
        // Encoding plain structs of strings and numbers cannot fail; a failure would be a programming error.
        guard let data = try? encoder.encode(line), let text = String(data: data, encoding: .utf8) else { return }
        emit(text + "\n")
    }

    mutating func end(emit: (String) -> Void) {}
}

/// The JSON shape of one exported sample (also used by the control protocol's `show`).
public struct ExportedSample: Codable, Sendable {
    public struct Point: Codable, Sendable {
        public var value: Double
        public var start: Date
        public var end: Date
    }
    public struct ExportedBeat: Codable, Sendable {
        public var offset: Double
        public var time: Date
        public var precededByGap: Bool
    }

    public var uuid: String
    public var type: String
    public var unit: String?
    public var start: Date
    public var end: Date
    public var count: Int
    public var aggregates: QuantityAggregates?
    public var device: DeviceInfo?
    public var metadata: Metadata
    public var points: [Point]?
    public var beats: [ExportedBeat]?

    public init(_ sample: Sample) {
        uuid = sample.uuid.uuidString
        type = sample.typeIdentifier
        start = sample.start
        end = sample.end
        device = sample.device
        metadata = sample.metadata
        switch sample {
        case .quantity(let q):
            unit = q.type.unit.rawValue
            count = q.count
            aggregates = q.aggregates
            points = q.points.map { Point(value: $0.value, start: $0.start, end: $0.end) }
        case .heartbeatSeries(let s):
            count = s.count
            beats = s.beats.map { ExportedBeat(offset: $0.offset, time: s.start.addingTimeInterval($0.offset), precededByGap: $0.precededByGap) }
        }
    }
}
