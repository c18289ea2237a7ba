import Foundation
import HealthModel
import HeartRate
import Ingest
import SeededRandom
import SourceEvents
import StrapLab

/// A replay file of a chest strap playing a real ECG recording: pyhrv's 337 NN intervals
/// (`SimulatorRecording.nnIntervalsMs`), looped by the simulator's own script (`SimulatorScript`: one
/// notification a second carrying the RR values of the beats completed since the previous one), written as
/// the JSON lines `heartd replay` reads (docs/REPLAY.md). What a strap adds here: a `connected` line with its
/// device information, arrival 0–40 ms after the second (deterministic), and no energy field (a Polar H10 sends
/// none). A day: 86,400 notification lines, ~97,000 beats, ~5.8 MB. The same recording as `SourceEvent`s
/// (`nextDay`, a `DayRecording`) is what `heartbench sync` ingests into each gateway's store.
struct RealRRRecording: DayRecording {
    static let address = "A0:9E:1A:12:34:56"
    static let secondsPerDay = 86_400
    /// Midnight UTC, as `SyntheticRecording`.
    static let startUnix = 1_789_948_800.0

    /// The strap's DIS serial: different serials make different physical devices centrally.
    let serial: String
    private var script = SimulatorScript()
    private var rng = SplitMix64(seed: 7)
    private var written = 0

    init(serial: String = "12345678") {
        self.serial = serial
    }

    var device: DeviceInfo {
        DeviceInfo(name: "Polar H10 \(serial)", manufacturer: "Polar Electro Oy", model: "H10", hardwareVersion: "39044024.10",
                   firmwareVersion: "5.0.0", localIdentifier: Self.address,
                   metadata: [MetadataKey.serialNumber: serial, MetadataKey.bodySensorLocation: "chest"])
    }

    /// The next `seconds` of the recording as source events (the first call starts with the `connected` event).
    mutating func nextDay(seconds: Int) -> [SourceEvent] {
        var events: [SourceEvent] = []
        events.reserveCapacity(seconds + 1)
        if written == 0 {
            events.append(.connected(address: Self.address, device: device, at: Timestamp(unixSeconds: Self.startUnix)))
        }
        for _ in 0..<seconds {
            var (elapsed, measurement) = script.next()
            measurement.energyKilojoules = nil
            let jitter = Double(rng.next() % 40) / 1000
            events.append(.notification(address: Self.address, bytes: measurement.encoded(),
                                        at: Timestamp(unixSeconds: Self.startUnix + elapsed + jitter)))
        }
        written += seconds
        return events
    }

    /// The next `seconds` of the recording as replay lines (the first call starts with the `connected` line).
    mutating func nextLines(seconds: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(seconds * 70 + 256)
        if written == 0 {
            out += Array(("{\"t\":\(Self.startUnix),\"device\":\"\(Self.address)\",\"event\":\"connected\",\"info\":"
                + "{\"name\":\"Polar H10 \(serial)\",\"manufacturer\":\"Polar Electro Oy\",\"model\":\"H10\","
                + "\"hardware\":\"39044024.10\",\"firmware\":\"5.0.0\",\"serial\":\"\(serial)\",\"location\":\"chest\"}}\n").utf8)
        }
        for _ in 0..<seconds {
            var (elapsed, measurement) = script.next()
            measurement.energyKilojoules = nil
            let jitter = Double(rng.next() % 40) / 1000
            let t = String(format: "%.3f", Self.startUnix + elapsed + jitter)
            out += Array("{\"t\":\(t),\"device\":\"\(Self.address)\",\"hex\":\"\(ReplayReader.hex(measurement.encoded()))\"}\n".utf8)
        }
        written += seconds
        return out
    }

    /// Writes `days` days to `path` (a day at a time: memory stays at one day's text). Returns the bytes written.
    static func write(days: Int, to path: String, secondsPerDay: Int = RealRRRecording.secondsPerDay) throws -> Int64 {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchmarkError("cannot create \(path)")
        }
        defer { try? handle.close() }
        var recording = RealRRRecording()
        var total: Int64 = 0
        for _ in 0..<days {
            let lines = recording.nextLines(seconds: secondsPerDay)
            try handle.write(contentsOf: lines)
            total += Int64(lines.count)
        }
        return total
    }
}
