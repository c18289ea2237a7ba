import Foundation
import HealthModel
import HeartRate
import SourceEvents

/// The notifications a simulated sensor sends, as pure values (no time passes here).
///
/// Beats follow the recording (looping); a notification goes out every `interval` seconds carrying the RR
/// values (1/1024 s) of the beats since the previous one, as a real sensor does (none when no beat fell in
/// the second). bpm = 60000 / latest RR ms, rounded; contact detected; energy rises 0.25 kJ/s and, as a real
/// sensor's counter would, restarts from 0 after 0xFFFF.
public struct SimulatorScript: Sendable {
    public let recording: [Int]
    public let interval: Double
    private var index = 0
    private var beatTicks = 0      // time of the last emitted beat, in 1/1024 s since the start
    private var nextBeatTicks: Int
    private var notificationCount = 0
    private var lastBPM: UInt16 = 60
    private var energyBase = 0.0

    /// - Parameter recording: RR intervals in ms (at least one positive value; else the sample recording).
    public init(recording: [Int] = SimulatorRecording.nnIntervalsMs, interval: Double = 1.0) {
        let usable = recording.filter { $0 > 0 }
        self.recording = usable.isEmpty ? SimulatorRecording.nnIntervalsMs : usable
        self.interval = interval > 0 ? interval : 1.0
        nextBeatTicks = Self.ticks(ms: self.recording[0])
    }

    static func ticks(ms: Int) -> Int { Int((Double(ms) * 1.024).rounded()) }

    /// The next notification: seconds since the start of the simulation and the measurement.
    public mutating func next() -> (elapsed: Double, measurement: HeartRateMeasurement) {
        notificationCount += 1
        let elapsed = Double(notificationCount) * interval
        let limit = Int((elapsed * 1024).rounded(.down))
        var rr: [UInt16] = []
        while nextBeatTicks <= limit {
            let value = nextBeatTicks - beatTicks
            rr.append(UInt16(clamping: value))
            lastBPM = UInt16((60_000 / Double(recording[index])).rounded())
            beatTicks = nextBeatTicks
            index = (index + 1) % recording.count
            nextBeatTicks = beatTicks + Self.ticks(ms: recording[index])
        }
        var energy = (elapsed * 0.25).rounded(.down) - energyBase
        if energy > Double(UInt16.max) {
            energyBase += energy
            energy = 0
        }
        let m = HeartRateMeasurement(bpm: lastBPM, contact: .detected, energyKilojoules: UInt16(energy),
                                     rrIntervals: rr)
        return (elapsed, m)
    }
}

/// How a simulated sensor stamps its events.
public enum SimulatorClock: Sendable, Hashable {
    /// `Timestamp.now()` when each event is emitted (the daemon).
    case real
    /// `start` plus the simulated time, independent of `speed` (tests, deterministic output).
    case simulated(start: Timestamp)
}

/// A heart-rate sensor without Bluetooth: plays a real RR recording (`SimulatorRecording`) as notifications
/// about once a second, looping, at `speed` times real time.
public struct SimulatedSensor: Source {
    public static let defaultAddress = "00:00:00:00:00:00"
    public static let deviceInfo = DeviceInfo(name: "heartd simulated sensor", manufacturer: "heartd", model: "SIM-1")

    public let address: String
    public let speed: Double
    public let clock: SimulatorClock
    public let recording: [Int]
    /// Stop (with a disconnect) after this many notifications; nil runs until the consumer stops.
    public let notificationLimit: Int?

    /// - Parameters:
    ///   - speed: 1.0 = real time; larger is faster (`.infinity` does not sleep at all).
    public init(address: String = SimulatedSensor.defaultAddress, speed: Double = 1.0, clock: SimulatorClock = .real,
                recording: [Int] = SimulatorRecording.nnIntervalsMs, notificationLimit: Int? = nil) {
        self.address = address
        self.speed = speed > 0 ? speed : 1.0
        self.clock = clock
        self.recording = recording
        self.notificationLimit = notificationLimit
    }

    public func events() -> AsyncStream<SourceEvent> {
        let sensor = self
        return AsyncStream { continuation in
            let task = Task {
                await sensor.run(into: continuation)
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func run(into continuation: AsyncStream<SourceEvent>.Continuation) async {
        let start: Timestamp
        switch clock {
        case .real: start = Timestamp.now()
        case .simulated(let s): start = s
        }
        var info = Self.deviceInfo
        info.localIdentifier = address
        continuation.yield(.connected(address: address, device: info, at: start))
        var script = SimulatorScript(recording: recording)
        var sent = 0
        var elapsed = 0.0
        while !Task.isCancelled {
            if let notificationLimit, sent >= notificationLimit { break }
            let (time, measurement) = script.next()
            let wait = (time - elapsed) / speed
            elapsed = time
            if wait.isFinite, wait > 0 {
                do { try await Task.sleep(nanoseconds: UInt64(wait * 1e9)) } catch { return }
            }
            continuation.yield(.notification(address: address, bytes: measurement.encoded(), at: stamp(start, time)))
            sent += 1
        }
        continuation.yield(.disconnected(address: address, reason: .sourceEnded, at: stamp(start, elapsed)))
    }

    private func stamp(_ start: Timestamp, _ elapsed: Double) -> Timestamp {
        switch clock {
        case .real: Timestamp.now()
        case .simulated: start.advanced(by: elapsed)
        }
    }
}
