import Foundation
import HealthModel
import HeartRate
import Ingest
import SourceEvents

/// A "real-RR sensor-day": pyhrv's sample NN series (shared/testdata/rr/pyhrv_SampleNNISeriesShort.txt, 337
/// intervals from a real recording; HealthModelTests keeps a copy) played in a loop, one 0x2A37 notification a
/// second carrying the RR values of the beats that ended in that second, bpm = 60000 / latest RR.
///
/// The same idea as the replay branch's real-RR day in `Data/`: both are `DayRecording`s, so the lead can keep
/// one of them without touching their users.
struct RealRRDay: DayRecording {
    static let address = "A0:9E:1A:00:00:01"

    let rrMs: [Double]
    let device: DeviceInfo
    let startUnix: Double
    private var index = 0
    private var day = 0
    private var lastBeatTicks = 0
    private var nextBeatTicks = 0
    private var latestRRms = 850.0
    private var connected = false

    /// `serial` makes each gateway's strap a different physical device centrally.
    init(rrMs: [Double], serial: String, startUnix: Double = 1_789_948_800) {
        precondition(!rrMs.isEmpty)
        self.rrMs = rrMs
        self.startUnix = startUnix
        device = DeviceInfo(name: "Polar H10 \(serial)", manufacturer: "Polar Electro Oy", model: "H10",
                            firmwareVersion: "5.0.0", localIdentifier: Self.address,
                            metadata: [MetadataKey.serialNumber: serial, MetadataKey.bodySensorLocation: "chest"])
        nextBeatTicks = Self.ticks(rrMs[0])
    }

    /// The RR file: one interval in ms a line (blank lines and '#' comments skipped).
    static func load(path: String) throws -> [Double] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let values = text.split(whereSeparator: \.isNewline).compactMap { line -> Double? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.hasPrefix("#") ? nil : Double(trimmed)
        }
        guard !values.isEmpty else { throw BenchmarkError("no RR values in \(path)") }
        return values
    }

    /// The first RR file found: shared/testdata beside the checkout, or the test fixture copy.
    static func defaultPath() -> String? {
        ["../shared/testdata/rr/pyhrv_SampleNNISeriesShort.txt", "/work/shared/testdata/rr/pyhrv_SampleNNISeriesShort.txt",
         "Tests/HealthModelTests/Fixtures/pyhrv_SampleNNISeriesShort.txt"]
            .first { FileManager.default.fileExists(atPath: $0) }
    }

    private static func ticks(_ ms: Double) -> Int { Int((ms * 1.024).rounded()) }

    mutating func nextDay(seconds: Int) -> [SourceEvent] {
        let first = day * 86_400
        day += 1
        var events: [SourceEvent] = []
        events.reserveCapacity(seconds + 1)
        if !connected {
            events.append(.connected(address: Self.address, device: device,
                                     at: Timestamp(unixSeconds: startUnix + Double(first) - 0.2)))
            connected = true
        }
        for offset in 0..<seconds {
            let second = first + offset
            let limit = (second + 1) * 1024
            var rr: [UInt16] = []
            while nextBeatTicks <= limit {
                rr.append(UInt16(clamping: nextBeatTicks - lastBeatTicks))
                lastBeatTicks = nextBeatTicks
                latestRRms = rrMs[index]
                index = (index + 1) % rrMs.count
                nextBeatTicks = lastBeatTicks + Self.ticks(rrMs[index])
            }
            let bytes = HeartRateMeasurement(bpm: UInt16((60_000 / latestRRms).rounded()), contact: .detected,
                                             rrIntervals: rr).encoded()
            events.append(.notification(address: Self.address, bytes: bytes,
                                        at: Timestamp(unixSeconds: startUnix + Double(second) + 0.01)))
        }
        return events
    }
}
