import Foundation
import HealthModel
import HeartRate
import Ingest
import SeededRandom
import SourceEvents
import StrapLab

/// A deterministic, realistic recording of one chest strap at 1 Hz, as replay events, generated a day at a time.
///
/// - RR intervals follow a random walk between 600 and 1100 ms, pulled towards a slow day/night target
///   (slower at night); beat times are integer 1/1024 s ticks like a sensor's.
/// - One notification a second (arrival jitter 0–40 ms) carries the RR values of the beats since the previous
///   one (0, 1 or 2), bpm = 60000 / latest RR, contact detected: flags 0x16, or 0x1e with the cumulative energy
///   (rising 0.3 kJ/s) on every 10th notification, or 0x06 when no beat fell in the second.
/// - `disconnectsPerDay` disconnections of 5–120 s (beats go on, nothing is sent), then a reconnect with the
///   device information; a battery reading every hour.
struct SyntheticRecording: Sendable {
    static let address = "A0:9E:1A:12:34:56"
    static let device = DeviceInfo(
        name: "Polar H10 12345678", manufacturer: "Polar Electro Oy", model: "H10", hardwareVersion: "39044024.10",
        firmwareVersion: "5.0.0", localIdentifier: address,
        metadata: [MetadataKey.serialNumber: "12345678", MetadataKey.bodySensorLocation: "chest"])

    /// Unix time of the first second (midnight UTC, so the hourly buckets line up with days).
    let startUnix: Double
    let disconnectsPerDay: Int
    private var rng: SplitMix64
    private var day = 0
    private var rrMs = 850.0
    /// RR of the latest emitted beat (what bpm is computed from).
    private var latestRRms = 850.0
    private var lastBeatTicks = 0
    private var nextBeatTicks: Int
    private var notifications = 0
    private var connected = false

    init(seed: UInt64 = 42, startUnix: Double = 1_789_948_800, disconnectsPerDay: Int = 4) {
        rng = SplitMix64(seed: seed)
        self.startUnix = startUnix
        self.disconnectsPerDay = disconnectsPerDay
        nextBeatTicks = Self.ticks(ms: rrMs)
    }

    static let secondsPerDay = 86_400

    private static func ticks(ms: Double) -> Int { Int((ms * 1.024).rounded()) }

    /// The events of the next day (`seconds` seconds of it: less for a shortened run).
    mutating func nextDay(seconds: Int = SyntheticRecording.secondsPerDay) -> [SourceEvent] {
        let firstSecond = day * Self.secondsPerDay
        day += 1
        let outages = plannedOutages(daySeconds: seconds)
        var events: [SourceEvent] = []
        events.reserveCapacity(seconds + 64)
        for offset in 0..<seconds {
            let second = firstSecond + offset
            let t = startUnix + Double(second)
            let beats = beatsUntil(second: second)
            if let outage = outages.first(where: { $0.contains(offset) }) {
                if offset == outage.lowerBound, connected {
                    events.append(.disconnected(address: Self.address, reason: .linkLost, at: Timestamp(unixSeconds: t)))
                    connected = false
                }
                continue
            }
            if !connected {
                events.append(.connected(address: Self.address, device: Self.device, at: Timestamp(unixSeconds: t - 0.2)))
                connected = true
            }
            if second % 3600 == 0 {
                events.append(.battery(address: Self.address, percent: 100 - (second / 3600) % 90,
                                       at: Timestamp(unixSeconds: t - 0.1)))
            }
            let jitter = Double(rng.next() % 40) / 1000
            events.append(.notification(address: Self.address, bytes: notification(rr: beats, second: second),
                                        at: Timestamp(unixSeconds: t + jitter)))
        }
        return events
    }

    /// Up to `disconnectsPerDay` outages, one in each equal slice of the day, never in its first minute.
    private mutating func plannedOutages(daySeconds: Int) -> [Range<Int>] {
        guard disconnectsPerDay > 0 else { return [] }
        let slice = daySeconds / disconnectsPerDay
        guard slice > 300 else { return [] }
        return (0..<disconnectsPerDay).map { k in
            let start = k * slice + 60 + Int(rng.next() % UInt64(slice - 200))
            return start..<(start + 5 + Int(rng.next() % 116))
        }
    }

    /// RR values (1/1024 s) of the beats up to the end of `second`, advancing the random walk.
    private mutating func beatsUntil(second: Int) -> [UInt16] {
        let limit = (second + 1) * 1024
        var rr: [UInt16] = []
        while nextBeatTicks <= limit {
            rr.append(UInt16(clamping: nextBeatTicks - lastBeatTicks))
            lastBeatTicks = nextBeatTicks
            latestRRms = rrMs
            rrMs = nextRR(second: second)
            nextBeatTicks = lastBeatTicks + Self.ticks(ms: rrMs)
        }
        return rr
    }

    /// A step of the RR random walk: ±25 ms noise, pulled 2 % towards 980 ms at night and 720 ms by day.
    private mutating func nextRR(second: Int) -> Double {
        let hour = (second % Self.secondsPerDay) / 3600
        let target = (hour < 7 || hour >= 23) ? 980.0 : 720.0
        let noise = Double(Int(rng.next() % 51) - 25)
        return min(1100, max(600, rrMs + noise + (target - rrMs) * 0.02))
    }

    private mutating func notification(rr: [UInt16], second: Int) -> [UInt8] {
        notifications += 1
        let bpm: UInt16 = UInt16((60_000 / latestRRms).rounded())
        let energy: UInt16? = notifications % 10 == 0 ? UInt16(clamping: Int(Double(second) * 0.3) % 65_536) : nil
        return HeartRateMeasurement(bpm: bpm, contact: .detected, energyKilojoules: energy, rrIntervals: rr).encoded()
    }
}
