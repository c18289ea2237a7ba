import Foundation
import HealthModel
@testable import HeartQueries
import Testing

/// `heartctl export --format fit` opens in Garmin's FIT SDK (`is_fit`, `check_integrity`, `read` without errors)
/// and fitdecode, with every RR interval; both read by scripts/fit_check.py (`pip install garmin-fit-sdk fitdecode`).
@Suite struct FITExportTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/fit_check.py")
    /// The first python3 on PATH (where pip installs for the user running the tests).
    static let python = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        .map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let device = DeviceInfo(name: "Polar H10 1234", manufacturer: "Polar Electro Oy", model: "H10",
                            localIdentifier: "A0:9E:1A:00:00:01")

    /// Ten minutes of beats (RR 760–860 ms on the 1/1024 s grid) with a gap after 300 s, and heart rate each second.
    func makeSamples() -> (samples: [Sample], rrMs: [Int]) {
        var beats: [Beat] = [], rr: [Int] = [], t = 0.0, k = 0
        beats.append(Beat(offset: 0, precededByGap: true))
        while t < 600 {
            let step = 810 + 50 * sin(Double(k) / 3)
            k += 1
            let next = ((t + step / 1000) * 1024).rounded() / 1024
            let gap = t < 300 && next >= 300
            let offset = gap ? next + 5 : next // five seconds lost: the next beat is preceded by a gap
            // As the exporter computes it: between the beats' dates, rounded to whole ms.
            let ms = start.addingTimeInterval(offset).timeIntervalSince(start.addingTimeInterval(t)) * 1000
            if !gap { rr.append(Int(ms.rounded())) }
            beats.append(Beat(offset: offset, precededByGap: gap))
            t = offset
        }
        let series = HeartbeatSeriesSample(start: start, end: start.addingTimeInterval(t), beats: beats, device: device)
        let points = (0 ..< 600).map { s in
            QuantityPoint(value: 74 + Double(s % 5), start: start.addingTimeInterval(Double(s)),
                          end: start.addingTimeInterval(Double(s + 1)))
        }
        let rate = QuantitySample(type: .heartRate, start: start, end: start.addingTimeInterval(600), points: points,
                                  aggregates: QuantityAggregates(points: points, style: QuantityType.heartRate.aggregation),
                                  device: device)
        return ([.heartbeatSeries(series), .quantity(rate)], rr)
    }

    func export(_ samples: [Sample]) throws -> (bytes: Data, pieces: [String]) {
        var pieces: [String] = []
        var e = ExportFormat.fit.makeExporter(exportDate: start)
        e.begin { pieces.append($0) }
        for s in samples { try e.write(s) { pieces.append($0) } }
        e.end { pieces.append($0) }
        var bytes = Data()
        for p in pieces { bytes += Data(base64Encoded: p) ?? Data() }
        return (bytes, pieces)
    }

    @Test func headerAndCRCAreFIT() throws {
        let (bytes, pieces) = try export(makeSamples().samples)
        #expect(ExportFormat.fit.isBinary)
        #expect(pieces.allSatisfy { Data(base64Encoded: $0) != nil })
        #expect(bytes.count > 14 + 2)
        #expect(Array(bytes[8 ..< 12]) == Array(".FIT".utf8))
        let size = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        #expect(size == bytes.count - 16)
        #expect(FITWriter.crc(Array(bytes)) == 0) // a FIT file's CRC over itself and its CRC is 0
    }

    @Test func twoDevicesAreRefused() throws {
        var samples = makeSamples().samples
        if case .quantity(var q) = samples[1] {
            q.device = DeviceInfo(name: "other", localIdentifier: "A0:9E:1A:00:00:02")
            samples[1] = .quantity(q)
        }
        #expect(throws: ExportError.self) { try export(samples) }
    }

    @Test(.enabled(if: python != nil, "python3 is missing: the FIT file is not checked by Garmin's SDK and fitdecode"))
    func garminSDKAndFitdecodeReadEveryRR() throws {
        let (samples, rr) = makeSamples()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("heartd-export-\(UUID()).fit")
        defer { try? FileManager.default.removeItem(at: file) }
        try export(samples).bytes.write(to: file)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try #require(Self.python))
        p.arguments = [Self.script.path, file.path]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let problem = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "scripts/fit_check.py (pip install garmin-fit-sdk fitdecode): \(problem)")
        let result = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(result["is_fit"] as? Bool == true)
        #expect(result["integrity"] as? Bool == true)
        #expect((result["errors"] as? [Any])?.isEmpty == true, "\(result["errors"] ?? "")")
        let counts = result["counts"] as? [String: Int] ?? [:]
        #expect(counts["file_id_mesgs"] == 1)
        #expect(counts["record_mesgs"] == 600)
        #expect(counts["lap_mesgs"] == 1)
        #expect(counts["session_mesgs"] == 1)
        #expect(counts["activity_mesgs"] == 1)
        #expect(rr.count > 700)
        #expect(result["garmin_rr_ms"] as? [Int] == rr)
        #expect(result["fitdecode_rr_ms"] as? [Int] == rr)
        #expect((result["heart_rates"] as? [Int])?.prefix(5) == [74, 75, 76, 77, 78])
    }
}
