import Foundation
import HealthModel

/// The compact on-disk form of a quantity series (about 2 bytes per steady 1 Hz heart-rate point).
///
/// Dates are stored as integer milliseconds since the series start: a point's start and end come back
/// rounded to the nearest millisecond after the series start (exact when they were on that grid).
/// Values are exact: integral values are stored as zigzag integers, any other Double as its 8 bytes.
///
/// Format version 1: `[0x01] varint(count)`, then per point
/// `varint(header) [8-byte double if non-integral] varint(zigzag(start step change)) [varint(zigzag(duration ms))]`
/// where `header = payload << 3 | nonIntegral << 2 | endKind`; payload = zigzag(value − previous integral value)
/// (0 and the double follows when the value is not integral). The start step is the distance in ms from the
/// previous point's start (the series start for the first), stored as its change from the previous step,
/// so a steady 1 Hz series stores 0. End kinds: 0 end == start, 1 end == next point's start,
/// 2 explicit duration follows, 3 same duration as the previous point.
/// A steady 1 Hz heart-rate series takes about 2 bytes per point.
public enum QuantitySeriesCoding {
    public static let version: UInt8 = 1
    private static let maxExact: Double = 9_007_199_254_740_992 // 2^53

    private enum EndKind: UInt64 {
        case instant = 0, nextStart = 1, explicit = 2, sameDuration = 3
    }

    /// Encodes points (normally sorted by start) relative to `seriesStart`.
    public static func encode(_ points: [QuantityPoint], seriesStart: Date) throws(SeriesCodingError) -> [UInt8] {
        var w = ByteWriter(capacity: 2 + points.count * 4 + 8)
        try encode(points[...], seriesStart: seriesStart, into: &w)
        return w.bytes
    }

    /// Appends the encoding of `points` to `w` (a checkpoint's tail, without a blob of its own). Each start is
    /// converted once, as the next point's when the point before needs it.
    static func encode(_ points: ArraySlice<QuantityPoint>, seriesStart: Date,
                       into w: inout ByteWriter) throws(SeriesCodingError) {
        let base = seriesStart.timeIntervalSinceReferenceDate
        func millis(_ date: Date, _ i: Int) throws(SeriesCodingError) -> Int64 {
            let ms = ((date.timeIntervalSinceReferenceDate - base) * 1000).rounded()
            guard ms.isFinite, abs(ms) < maxExact else {
                throw SeriesCodingError(.unencodable, "point \(i) has a date too far from the series start")
            }
            return Int64(ms)
        }
        w.byte(version)
        w.varint(UInt64(points.count))
        var previousStart: Int64 = 0
        var previousStep: Int64 = 0
        var previousDuration: Int64 = 0
        var previousValue: Int64 = 0
        var index = points.startIndex
        var start = index < points.endIndex ? try millis(points[index].start, 0) : 0
        for i in 0..<points.count {
            let p = points[index]
            index += 1
            let next = index < points.endIndex ? try millis(points[index].start, i + 1) : nil
            let end = try millis(p.end, i)
            let duration = end &- start
            let kind: EndKind
            if end == start {
                kind = .instant
            } else if end == next {
                kind = .nextStart
            } else if duration == previousDuration {
                kind = .sameDuration
            } else {
                kind = .explicit
            }
            let value = p.value
            let integral = value.isFinite && value.rounded() == value && abs(value) < maxExact
                && !(value == 0 && value.sign == .minus)
            var payload: UInt64 = 0
            if integral {
                payload = ZigZag.encode(Int64(value) - previousValue)
                previousValue = Int64(value)
            }
            w.varint(payload << 3 | (integral ? 0 : 4) | kind.rawValue)
            if !integral { w.double(value) }
            let step = start - previousStart
            w.varint(ZigZag.encode(step - previousStep))
            if kind == .explicit { w.varint(ZigZag.encode(duration)) }
            previousStart = start
            previousStep = step
            previousDuration = duration
            start = next ?? 0
        }
    }

    /// Decodes a blob made by `encode` with the same `seriesStart`; throws on any malformed input.
    public static func decode(_ bytes: [UInt8], seriesStart: Date) throws(SeriesCodingError) -> [QuantityPoint] {
        var r = ByteReader(bytes)
        let v = try r.byte()
        guard v == version else { throw SeriesCodingError(.unknownVersion, "quantity series format \(v) is unknown") }
        let count = try r.varint()
        guard count <= UInt64(r.remaining / 2) else {
            throw SeriesCodingError(.inconsistent, "blob announces \(count) points but holds only \(r.remaining) bytes")
        }
        let n = Int(count)
        // First pass into plain integers; dates are made once every end is known.
        var values = [Double](repeating: 0, count: n)
        var starts = [Int64](repeating: 0, count: n)
        var ends = [Int64](repeating: 0, count: n)
        var start: Int64 = 0
        var step: Int64 = 0
        var value: Int64 = 0
        var previousDuration: Int64 = 0
        var pendingNext = false
        let limit: Int64 = 1 << 53
        for i in 0..<n {
            let header = try r.varint()
            if header & 4 != 0 {
                guard header >> 3 == 0 else { throw SeriesCodingError(.inconsistent, "point \(i) has a payload and a double") }
                values[i] = try r.double()
            } else {
                let (v, overflow) = value.addingReportingOverflow(ZigZag.decode(header >> 3))
                guard !overflow, abs(v) < limit else { throw SeriesCodingError(.inconsistent, "point \(i) value overflows") }
                value = v
                values[i] = Double(value)
            }
            let (newStep, stepOverflow) = step.addingReportingOverflow(ZigZag.decode(try r.varint()))
            guard !stepOverflow, abs(newStep) < limit * 2 else {
                throw SeriesCodingError(.inconsistent, "point \(i) start step overflows")
            }
            step = newStep
            let s = start + step
            guard abs(s) < limit else { throw SeriesCodingError(.inconsistent, "point \(i) start overflows") }
            start = s
            starts[i] = start
            if pendingNext { ends[i - 1] = start; previousDuration = start &- starts[i - 1] }
            pendingNext = false
            switch header & 3 {
            case EndKind.instant.rawValue:
                ends[i] = start
                previousDuration = 0
            case EndKind.nextStart.rawValue:
                pendingNext = true
            case EndKind.explicit.rawValue:
                let duration = ZigZag.decode(try r.varint())
                guard abs(duration) < limit else { throw SeriesCodingError(.inconsistent, "point \(i) duration overflows") }
                ends[i] = start + duration
                previousDuration = duration
            default:
                ends[i] = start + previousDuration
            }
            guard abs(ends[i]) < limit * 2 else { throw SeriesCodingError(.inconsistent, "point \(i) end overflows") }
        }
        guard !pendingNext else { throw SeriesCodingError(.inconsistent, "the last point ends at a next point that does not exist") }
        guard r.isAtEnd else { throw SeriesCodingError(.inconsistent, "\(r.remaining) bytes follow the last point") }
        let base = seriesStart.timeIntervalSinceReferenceDate
        var points: [QuantityPoint] = []
        points.reserveCapacity(n)
        for i in 0..<n {
            points.append(QuantityPoint(
                value: values[i],
                start: Date(timeIntervalSinceReferenceDate: base + Double(starts[i]) / 1000),
                end: Date(timeIntervalSinceReferenceDate: base + Double(ends[i]) / 1000)))
        }
        return points
    }
}
