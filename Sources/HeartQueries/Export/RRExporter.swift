import Foundation
import HealthModel

/// One RR interval in milliseconds per line, from consecutive beats in time order. An interval is written only
/// when the later beat is not `precededByGap` (beats may be missing before it), so no RR spans a gap; across a
/// series rotation without a gap the interval is kept. Refuses beats of more than one device.
struct RRExporter: SampleExporter {
    private var lastBeat: Date?
    private var device: String?

    mutating func begin(emit: (String) -> Void) {}

    mutating func write(_ sample: Sample, emit: (String) -> Void) throws(ExportError) {
        guard case .heartbeatSeries(let s) = sample else { return }
        let address = s.device?.localIdentifier ?? ""
        if let device, device != address {
            throw ExportError(code: .ambiguousDevice,
                              detail: "beats of \(device) and \(address) in range: choose one with --device")
        }
        device = address
        for b in s.beats {
            let t = s.start.addingTimeInterval(b.offset)
            if let last = lastBeat, !b.precededByGap, t > last {
                let ms = t.timeIntervalSince(last) * 1000
                emit(String(format: "%.3f\n", ms))
            }
            lastBeat = t
        }
    }

    mutating func end(emit: (String) -> Void) {}
}
