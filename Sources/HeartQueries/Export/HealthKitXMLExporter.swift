import Foundation
import HealthModel

/// Apple Health `export.xml` records: one `Record` per heart-rate point and per HRV SDNN sample, the latter with a
/// `HeartRateVariabilityMetadataList` of `InstantaneousBeatsPerMinute` from the heartbeat series it was derived
/// from (as the Health app exports them). Energy samples are exported as `HKQuantityTypeIdentifierActiveEnergyBurned`.
/// An HRV sample and its series have the same start, so either may come first: the one that comes first waits.
struct HealthKitXMLExporter: SampleExporter {
    let exportDate: Date
    private var seriesWaitingForHRV: [String: HeartbeatSeriesSample] = [:]
    private var hrvWaitingForSeries: [String: QuantitySample] = [:]

    init(exportDate: Date) {
        self.exportDate = exportDate
    }

    mutating func begin(emit: (String) -> Void) {
        emit("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE HealthData [\n\(AppleHealthDTD.internalSubset)\n]>\n")
        emit("<HealthData locale=\"en_US\">\n")
        emit(" <ExportDate value=\"\(Self.appleDate(exportDate))\"/>\n")
        // Required by Apple's DTD; heartd knows none of the characteristics, so each says "not set" as Apple does.
        emit(" <Me HKCharacteristicTypeIdentifierDateOfBirth=\"\" HKCharacteristicTypeIdentifierBiologicalSex=\"HKBiologicalSexNotSet\""
             + " HKCharacteristicTypeIdentifierBloodType=\"HKBloodTypeNotSet\""
             + " HKCharacteristicTypeIdentifierFitzpatrickSkinType=\"HKFitzpatrickSkinTypeNotSet\"/>\n")
    }

    mutating func write(_ sample: Sample, emit: (String) -> Void) throws(ExportError) {
        switch sample {
        case .heartbeatSeries(let s):
            let key = s.uuid.uuidString
            if let hrv = hrvWaitingForSeries.removeValue(forKey: key) {
                emitHRV(hrv, series: s, emit: emit)
            } else {
                seriesWaitingForHRV[key] = s
            }
        case .quantity(let q) where q.type == .heartRateVariabilitySDNN:
            if let key = q.metadata[MetadataKey.derivedFromSeries] {
                if let s = seriesWaitingForHRV.removeValue(forKey: key) {
                    emitHRV(q, series: s, emit: emit)
                } else {
                    hrvWaitingForSeries[key] = q
                }
            } else {
                emitHRV(q, series: nil, emit: emit)
            }
        case .quantity(let q):
            for p in q.points {
                emit(" " + record(q, value: p.value, start: p.start, end: p.end) + "/>\n")
            }
        }
        // A series whose HRV never comes (fewer than two RR intervals) is not exported on its own: Apple's
        // format has no heartbeat-series record. Keep the waiting room small.
        if seriesWaitingForHRV.count > 64, let oldest = seriesWaitingForHRV.min(by: { $0.value.start < $1.value.start }) {
            seriesWaitingForHRV.removeValue(forKey: oldest.key)
        }
    }

    mutating func end(emit: (String) -> Void) {
        for hrv in hrvWaitingForSeries.values.sorted(by: { $0.start < $1.start }) {
            emitHRV(hrv, series: nil, emit: emit)
        }
        emit("</HealthData>\n")
    }

    private func emitHRV(_ q: QuantitySample, series: HeartbeatSeriesSample?, emit: (String) -> Void) {
        let value = q.aggregates.average ?? q.points.first?.value ?? 0
        guard let series, series.beats.count > 1 else {
            emit(" " + record(q, value: value, start: q.start, end: q.end) + "/>\n")
            return
        }
        emit(" " + record(q, value: value, start: q.start, end: q.end) + ">\n")
        emit("  <HeartRateVariabilityMetadataList>\n")
        var previous: Double?
        for b in series.beats {
            defer { previous = b.offset }
            guard let p = previous, !b.precededByGap, b.offset > p else { continue }
            let bpm = Int((60 / (b.offset - p)).rounded())
            let t = Self.timeOfDay(series.start.addingTimeInterval(b.offset))
            emit("   <InstantaneousBeatsPerMinute bpm=\"\(bpm)\" time=\"\(t)\"/>\n")
        }
        emit("  </HeartRateVariabilityMetadataList>\n </Record>\n")
    }

    private func record(_ q: QuantitySample, value: Double, start: Date, end: Date) -> String {
        var s = "<Record type=\"\(q.type.identifier)\" sourceName=\"heartd\" sourceVersion=\"\(HeartdVersion.string)\""
        if let device = q.device { s += " device=\"\(Self.escape(Self.deviceString(device)))\"" }
        s += " unit=\"\(q.type.unit.rawValue)\" creationDate=\"\(Self.appleDate(q.end))\""
        s += " startDate=\"\(Self.appleDate(start))\" endDate=\"\(Self.appleDate(end))\" value=\"\(CSVExporter.number(value))\""
        return s
    }

    /// Apple's device string: `<<HKDevice: 0x…>, name:…, manufacturer:…, model:…, hardware:…, software:…>`.
    static func deviceString(_ d: DeviceInfo) -> String {
        var parts = ["<<HKDevice: 0x0>"]
        let fields: [(String, String?)] = [("name", d.name), ("manufacturer", d.manufacturer), ("model", d.model),
                                          ("hardware", d.hardwareVersion), ("firmware", d.firmwareVersion),
                                          ("software", d.softwareVersion), ("localIdentifier", d.localIdentifier)]
        for case let (key, value?) in fields { parts.append("\(key):\(value)") }
        return parts.joined(separator: ", ") + ">"
    }

    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.count)
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    private static let utc = TimeZone(identifier: "UTC") ?? .current

    /// `2026-11-22 08:36:45 +0000`, the date format of Apple's export.
    static func appleDate(_ date: Date) -> String {
        let c = Calendar(identifier: .gregorian).dateComponents(in: utc, from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d +0000",
                      c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// `8:33:59.63 AM`, the time format of InstantaneousBeatsPerMinute (en_US).
    static func timeOfDay(_ date: Date) -> String {
        // Round to whole centiseconds first: 0.63 s is not exact in binary and must not print as .62.
        let centis = Int64((date.timeIntervalSince1970 * 100).rounded())
        let whole = Date(timeIntervalSince1970: Double(centis.quotientAndRemainder(dividingBy: 100).quotient))
        let c = Calendar(identifier: .gregorian).dateComponents(in: utc, from: whole)
        let hour = c.hour ?? 0, h12 = hour % 12 == 0 ? 12 : hour % 12
        return String(format: "%d:%02d:%02d.%02d %@", h12, c.minute ?? 0, c.second ?? 0,
                      Int(centis % 100), hour < 12 ? "AM" : "PM")
    }
}
