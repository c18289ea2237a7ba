import Foundation
import HealthModel

/// A Garmin FIT activity file (`--format fit`), for GoldenCheetah, Runalyze, Kubios and Garmin's tools: `file_id`
/// (an activity), a timer-start `event`, one `record` per second with the heart rate, `hrv` messages carrying the
/// RR intervals (up to 5 each, seconds × 1000 = whole ms), one `lap` per heartbeat series, the timer-stop `event`,
/// the `session` and the `activity`. Heart rate comes from the heart-rate samples in range (the last value of
/// each second), or from 60000 / RR when there are none. An RR interval is written only between consecutive beats
/// without a gap (as `rr`); FIT has no gap marker. Binary: the file is built at `end` and emitted as base64 in
/// pieces of whole 3-byte groups (`ExportFormat.isBinary`). Refuses samples of more than one device.
struct FITExporter: SampleExporter {
    private var heartRate: [UInt32: UInt8] = [:]
    private var derivedRate: [UInt32: UInt8] = [:]
    private var rrMs: [UInt16] = []
    /// Per RR, the FIT time of its closing beat, so that hrv messages follow the record of their second.
    private var rrTimes: [UInt32] = []
    private var laps: [(start: Date, end: Date)] = []
    private var lastBeat: Date?
    private var device: String?
    private var serial: UInt32 = 0

    mutating func begin(emit: (String) -> Void) {}

    mutating func write(_ sample: Sample, emit: (String) -> Void) throws(ExportError) {
        switch sample {
        case .heartbeatSeries(let s):
            try claim(s.device)
            laps.append((s.start, s.end))
            for b in s.beats {
                let t = s.start.addingTimeInterval(b.offset)
                if let last = lastBeat, !b.precededByGap, t > last {
                    let ms = t.timeIntervalSince(last) * 1000
                    if ms < 65_535 {
                        let second = FITWriter.timestamp(t)
                        rrMs.append(UInt16(ms.rounded()))
                        rrTimes.append(second)
                        derivedRate[second] = UInt8(clamping: Int((60_000 / ms).rounded()))
                    }
                }
                lastBeat = t
            }
        case .quantity(let q) where q.type == .heartRate:
            try claim(q.device)
            for p in q.points { heartRate[FITWriter.timestamp(p.start)] = UInt8(clamping: Int(p.value.rounded())) }
        default:
            return
        }
    }

    private mutating func claim(_ info: DeviceInfo?) throws(ExportError) {
        let address = info?.localIdentifier ?? ""
        if let device, device != address {
            throw ExportError(code: .ambiguousDevice, detail: "samples of \(device) and \(address) in range: choose one with --device")
        }
        if device == nil {
            // The serial number: FNV-1a of the address (stable across runs), never 0 (uint32z's invalid value).
            var h: UInt32 = 2_166_136_261
            for b in address.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
            serial = h == 0 ? 1 : h
        }
        device = address
    }

    mutating func end(emit: (String) -> Void) {
        let bytes = file()
        var i = 0
        while i < bytes.count {
            let n = min(48 * 1024, bytes.count - i) // a multiple of 3 but for the last piece
            emit(Data(bytes[i ..< i + n]).base64EncodedString())
            i += n
        }
    }

    /// The FIT file of everything written.
    func file() -> [UInt8] {
        let rates = heartRate.isEmpty ? derivedRate : heartRate
        let seconds = rates.keys.sorted()
        let first = min(seconds.first ?? .max, laps.map { FITWriter.timestamp($0.start) }.min() ?? .max, rrTimes.first ?? .max)
        let last = max(seconds.last ?? 0, laps.map { FITWriter.timestamp($0.end) }.max() ?? 0, rrTimes.last ?? 0)
        let start = first == .max ? FITWriter.timestamp(Date()) : first
        let stop = max(start, last)
        var w = FITWriter()
        w.define(local: 0, global: 0, fields: [.enumeration(0), .uint16(1), .uint16(2), .uint32z(3), .uint32(4)])
        w.record(local: 0, [4, 255, 0, UInt64(serial), UInt64(start)]) // activity, manufacturer "development"
        w.define(local: 6, global: 21, fields: [.uint32(253), .enumeration(0), .enumeration(1)])
        w.record(local: 6, [UInt64(start), 0, 0]) // timer, start
        w.define(local: 1, global: 20, fields: [.uint32(253), .uint8(3)])
        w.define(local: 2, global: 78, fields: [.uint16Array(0, count: 5)])
        var next = 0 // the next RR to write
        func flushRR(through second: UInt32, _ w: inout FITWriter) {
            var pending: [UInt16] = []
            while next < rrMs.count && rrTimes[next] <= second {
                pending.append(rrMs[next])
                next += 1
                if pending.count == 5 { w.record(local: 2, pending.map(UInt64.init)); pending = [] }
            }
            if !pending.isEmpty { w.record(local: 2, (pending + Array(repeating: 0xFFFF, count: 5 - pending.count)).map(UInt64.init)) }
        }
        for s in seconds {
            w.record(local: 1, [UInt64(s), UInt64(rates[s] ?? 0xFF)])
            flushRR(through: s, &w)
        }
        flushRR(through: .max, &w)
        w.record(local: 6, [UInt64(stop), 0, 4]) // timer, stop all
        let lapSpans = laps.isEmpty ? [(start, stop)] : laps.map { (FITWriter.timestamp($0.start), FITWriter.timestamp($0.end)) }
        let lapFields: [FITWriter.Field] = [.uint32(253), .uint32(2), .uint32(7), .uint32(8), .enumeration(0), .enumeration(1),
                                            .uint8(15), .uint8(16)]
        w.define(local: 3, global: 19, fields: lapFields)
        for (a, b) in lapSpans {
            let (avg, peak) = Self.summary(rates, from: a, to: b)
            let ms = UInt64(b - a) * 1000
            w.record(local: 3, [UInt64(b), UInt64(a), ms, ms, 9, 1, avg, peak]) // lap, stop
        }
        let (avg, peak) = Self.summary(rates, from: start, to: stop)
        let total = UInt64(stop - start) * 1000
        w.define(local: 4, global: 18, fields: [.uint32(253), .uint32(2), .uint32(7), .uint32(8), .enumeration(0),
                                               .enumeration(1), .enumeration(5), .enumeration(6), .uint16(25), .uint16(26),
                                               .uint8(16), .uint8(17)])
        w.record(local: 4, [UInt64(stop), UInt64(start), total, total, 8, 1, 0, 0, 0, UInt64(lapSpans.count), avg, peak])
        w.define(local: 5, global: 34, fields: [.uint32(253), .uint32(0), .uint16(1), .enumeration(2), .enumeration(3),
                                               .enumeration(4)])
        w.record(local: 5, [UInt64(stop), total, 1, 0, 26, 1]) // manual, activity, stop
        return w.file()
    }

    /// Average and maximum heart rate of the seconds in [from, to]; 0xFF (invalid) when none.
    static func summary(_ rates: [UInt32: UInt8], from: UInt32, to: UInt32) -> (UInt64, UInt64) {
        let values = rates.filter { $0.key >= from && $0.key <= to }.map { Int($0.value) }
        guard !values.isEmpty else { return (0xFF, 0xFF) }
        return (UInt64((Double(values.reduce(0, +)) / Double(values.count)).rounded()), UInt64(values.max() ?? 0xFF))
    }
}
