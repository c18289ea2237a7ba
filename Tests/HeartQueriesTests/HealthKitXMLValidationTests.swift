import Foundation
import HealthModel
@testable import HeartQueries
import Testing

/// `heartctl export --format healthkit-xml` is a valid Apple Health `export.xml`: it carries Apple's DTD inline, as
/// the Health app does, and validates against the reference copy with libxml2's `xmllint`.
@Suite struct HealthKitXMLValidationTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/apple-health-export-v11.dtd")

    func export() throws -> String {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let device = DeviceInfo(name: "Polar H10 1234", manufacturer: "Polar Electro Oy", model: "H10",
                                localIdentifier: "A0:9E:1A:00:00:01")
        let beats = [Beat(offset: 0, precededByGap: true), Beat(offset: 1, precededByGap: false),
                     Beat(offset: 2, precededByGap: false)]
        let series = HeartbeatSeriesSample(start: start, end: start.addingTimeInterval(2), beats: beats, device: device)
        let hrvPoint = QuantityPoint(value: 42.5, start: series.start, end: series.end)
        let hrv = QuantitySample(type: .heartRateVariabilitySDNN, start: series.start, end: series.end, points: [hrvPoint],
                                 aggregates: QuantityAggregates(points: [hrvPoint], style: .discreteArithmetic),
                                 device: device, metadata: [MetadataKey.derivedFromSeries: series.uuid.uuidString])
        let hr = [QuantityPoint(value: 61, start: start, end: start.addingTimeInterval(1))]
        let rate = QuantitySample(type: .heartRate, start: start, end: start.addingTimeInterval(1), points: hr,
                                  aggregates: QuantityAggregates(points: hr, style: .discreteTemporallyWeighted), device: device)
        var out = ""
        var e = ExportFormat.healthkitXML.makeExporter(exportDate: start)
        e.begin { out += $0 }
        for s in [Sample.heartbeatSeries(series), .quantity(hrv), .quantity(rate)] { try e.write(s) { out += $0 } }
        e.end { out += $0 }
        return out
    }

    func xmllint(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")  // scripts/setup.sh installs libxml2-utils
        p.arguments = arguments
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = pipe
        try p.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return (p.terminationStatus, text)
    }

    @Test func validatesAgainstApplesDTD() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heartd-export-\(UUID()).xml")
        defer { try? FileManager.default.removeItem(at: file) }
        let xml = try export()
        try xml.write(to: file, atomically: true, encoding: .utf8)
        #expect(xml.contains("<Me "))
        let external = try xmllint(["--noout", "--dtdvalid", Self.fixture.path, file.path])
        #expect(external.status == 0, "xmllint --dtdvalid: \(external.output)")
        let inline = try xmllint(["--noout", "--valid", file.path])
        #expect(inline.status == 0, "xmllint --valid (the inline DTD): \(inline.output)")
    }

    @Test func theInlineDTDIsApples() throws {
        let reference = try String(contentsOf: Self.fixture, encoding: .utf8)
        #expect(AppleHealthDTD.internalSubset + "\n" == reference)
    }

    /// The check is real: without `<Me>` the same file fails, as heartd's export did before.
    @Test func withoutMeTheFileIsInvalid() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heartd-export-\(UUID()).xml")
        defer { try? FileManager.default.removeItem(at: file) }
        let xml = try export().split(separator: "\n").filter { !$0.hasPrefix(" <Me ") }.joined(separator: "\n")
        try xml.write(to: file, atomically: true, encoding: .utf8)
        #expect(try xmllint(["--noout", "--dtdvalid", Self.fixture.path, file.path]).status != 0)
    }
}
