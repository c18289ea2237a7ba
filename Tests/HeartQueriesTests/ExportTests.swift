import Foundation
import HealthModel
import HeartQueries
import Testing
@testable import HeartQueries

struct ExportTests {
    let device = DeviceInfo(name: "Polar H10 1234", manufacturer: "Polar Electro Oy", model: "H10",
                            hardwareVersion: "39044024.10", firmwareVersion: "5.0.0", softwareVersion: "3.0.0",
                            localIdentifier: "A0:9E:1A:00:00:01")
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    func series(_ offsets: [(Double, Bool)], uuid: UUID = UUID()) -> HeartbeatSeriesSample {
        let beats = offsets.map { Beat(offset: $0.0, precededByGap: $0.1) }
        return HeartbeatSeriesSample(uuid: uuid, start: start, end: start.addingTimeInterval(beats.last!.offset),
                                     beats: beats, device: device)
    }

    func run(_ format: ExportFormat, _ samples: [Sample]) throws -> String {
        var out = ""
        var e = format.makeExporter(exportDate: start)
        e.begin { out += $0 }
        for s in samples { try e.write(s) { out += $0 } }
        e.end { out += $0 }
        return out
    }

    @Test func rrNeverSpansAGap() throws {
        let s = series([(0, true), (0.75, false), (1.5, false), (4.0, true), (4.8, false)])
        let lines = try run(.rr, [.heartbeatSeries(s)]).split(separator: "\n")
        #expect(lines == ["750.000", "750.000", "800.000"])
    }

    @Test func rrKeepsTheIntervalAcrossARotationWithoutGap() throws {
        let a = series([(0, true), (1.0, false)])
        var b = series([(0.5, false)])
        b.start = start.addingTimeInterval(1.0)
        let lines = try run(.rr, [.heartbeatSeries(a), .heartbeatSeries(b)]).split(separator: "\n")
        #expect(lines == ["1000.000", "500.000"])
    }

    @Test func rrRefusesTwoDevices() {
        let a = series([(0, true), (1.0, false)])
        var b = series([(0, true), (1.0, false)])
        b.device?.localIdentifier = "A0:9E:1A:00:00:02"
        #expect(throws: ExportError.self) { try run(.rr, [.heartbeatSeries(a), .heartbeatSeries(b)]) }
    }

    @Test func csvHasOneRowPerPointAndBeat() throws {
        let points = [QuantityPoint(value: 72, start: start, end: start.addingTimeInterval(1)),
                      QuantityPoint(value: 73.5, start: start.addingTimeInterval(1), end: start.addingTimeInterval(2))]
        let q = QuantitySample(type: .heartRate, start: start, end: start.addingTimeInterval(2), points: points,
                               aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted), device: device)
        let out = try run(.csv, [.quantity(q), .heartbeatSeries(series([(0, true), (0.8, false)]))])
        let rows = out.split(separator: "\n")
        #expect(rows.count == 5)
        #expect(rows[0] == "kind,series,start,end,value,unit,preceded_by_gap,device")
        #expect(rows[1].hasPrefix("heart-rate,\(q.uuid.uuidString),2027-01-15T08:00:00.000Z,2027-01-15T08:00:01.000Z,72,count/min,,A0:9E:1A:00:00:01"))
        #expect(rows[2].contains(",73.5,count/min,"))
        #expect(rows[4].hasSuffix(",0.8,s,false,A0:9E:1A:00:00:01"))
    }

    @Test func healthKitXMLPairsHRVWithItsSeriesInEitherOrder() throws {
        let s = series([(0, true), (1.0, false), (2.0, false)])
        let point = QuantityPoint(value: 42.5, start: s.start, end: s.end)
        let hrv = QuantitySample(type: .heartRateVariabilitySDNN, start: s.start, end: s.end, points: [point],
                                 aggregates: QuantityAggregates(points: [point], style: .discreteArithmetic),
                                 device: device, metadata: [MetadataKey.derivedFromSeries: s.uuid.uuidString])
        for order in [[Sample.heartbeatSeries(s), .quantity(hrv)], [.quantity(hrv), .heartbeatSeries(s)]] {
            let xml = try run(.healthkitXML, order)
            #expect(xml.contains("type=\"HKQuantityTypeIdentifierHeartRateVariabilitySDNN\""))
            #expect(xml.contains("value=\"42.5\""))
            #expect(xml.components(separatedBy: "<InstantaneousBeatsPerMinute bpm=\"60\"").count == 3)
            #expect(xml.contains("device=\"&lt;&lt;HKDevice: 0x0&gt;, name:Polar H10 1234, manufacturer:Polar Electro Oy, model:H10"))
            #expect(xml.contains("startDate=\"2027-01-15 08:00:00 +0000\""))
            #expect(xml.hasSuffix("</HealthData>\n"))
        }
    }

    @Test func healthKitXMLTimeOfDayIsTwelveHour() {
        #expect(HealthKitXMLExporter.timeOfDay(start.addingTimeInterval(0.63)) == "8:00:00.63 AM")
        #expect(HealthKitXMLExporter.timeOfDay(start.addingTimeInterval(5 * 3600)) == "1:00:00.00 PM")
    }
}
