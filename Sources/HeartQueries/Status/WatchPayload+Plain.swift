import Control
import Foundation

/// The two events heartd sends for every notification, read from its plain line in place (`JSONPlainValue`)
/// instead of through `Decodable`, which costs more than the rest of a live service's work on them. Each gives
/// exactly what `JSONBridge.decode` of the line gives, or nil when a field is missing or of another type: the line
/// then takes the `Decodable` way, which says why (`WatchLineFastPathTests` holds the two equal).
extension WatchPayload.HeartRate {
    init?(plain line: JSONPlainValue) {
        guard let device = line[member: "device"]?.string, let at = line[member: "at"]?.date,
              let bpm = line[member: "bpm"]?.int else { return nil }
        self.init(device: device, at: at, bpm: bpm)
    }
}

extension WatchPayload.Beats {
    init?(plain line: JSONPlainValue) {
        guard let device = line[member: "device"]?.string, let elements = line[member: "beats"]?.elements else { return nil }
        var beats: [WatchPayload.Beat] = []
        beats.reserveCapacity(elements.count)
        for element in elements {
            guard let time = element[member: "time"]?.date, let gap = element[member: "gap"]?.bool else { return nil }
            beats.append(WatchPayload.Beat(time: time, gap: gap))
        }
        self.init(device: device, beats: beats)
    }
}

extension JSONPlainValue {
    /// A date as `JSONBridge` reads one: a string in `ExportDates`' form.
    var date: Date? { string.flatMap(ExportDates.parse) }
}
