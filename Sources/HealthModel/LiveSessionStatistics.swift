import Foundation

/// The statistics of an active session kept up to date value by value, so that showing them (`heartctl status`)
/// costs nothing however long the session has run: beats, the latest and the temporally weighted average heart
/// rate, and RMSSD of the RR intervals so far. As in `SessionStatistics`, no RR interval spans a gap or two series,
/// and each device is on its own (two sensors worn together are never paired beat to beat).
///
/// Pure: the daemon feeds it its live events (and, after a restart, the session's stored data first).
public struct LiveSessionStatistics: Sendable, Hashable {
    public let start: Date
    public private(set) var beats = 0
    /// The latest heart rate of any of the session's devices, and when it was measured.
    public private(set) var currentBPM: Double?
    public private(set) var currentAt: Date?
    private var weightedBPM = 0.0
    private var weightSeconds = 0.0
    private var plainBPM = 0.0
    private var heartRateCount = 0
    private var devices: [String: DeviceState] = [:]
    private var squaredDifferences = 0.0
    private var differenceCount = 0

    /// A heart-rate value holds until the next one of its device, for at most this long (longer is a gap).
    public static let maximumHold: TimeInterval = 5

    struct DeviceState: Sendable, Hashable {
        var lastBeat: Date?
        var lastRRMs: Double?
        var heartRate: Double?
        var heartRateAt: Date?
    }

    public init(start: Date) {
        self.start = start
    }

    /// One beat of `device`. `startsSegment`: the beat follows a gap or opens a new series, so no RR interval ends
    /// at it. Beats before the session's start are not counted.
    public mutating func addBeat(device: String, at time: Date, startsSegment: Bool) {
        guard time >= start else { return }
        beats += 1
        var state = devices[device, default: DeviceState()]
        defer { devices[device] = state }
        guard !startsSegment, let previous = state.lastBeat, time > previous else {
            state.lastBeat = time
            state.lastRRMs = nil
            return
        }
        let rr = time.timeIntervalSince(previous) * 1000
        if let last = state.lastRRMs {
            squaredDifferences += (rr - last) * (rr - last)
            differenceCount += 1
        }
        state.lastBeat = time
        state.lastRRMs = rr
    }

    /// The next beat of `device` starts a new segment (its series ended or its link dropped).
    public mutating func breakSegment(device: String) {
        devices[device]?.lastBeat = nil
        devices[device]?.lastRRMs = nil
    }

    /// A heart-rate value of `device`; the previous value of the device weighs the time until this one (at most
    /// `maximumHold`).
    public mutating func addHeartRate(device: String, bpm: Double, at time: Date) {
        guard time >= start, bpm.isFinite else { return }
        var state = devices[device, default: DeviceState()]
        if let previous = state.heartRate, let at = state.heartRateAt {
            let held = min(max(time.timeIntervalSince(at), 0), Self.maximumHold)
            weightedBPM += previous * held
            weightSeconds += held
        }
        state.heartRate = bpm
        state.heartRateAt = time
        devices[device] = state
        plainBPM += bpm
        heartRateCount += 1
        if currentAt.map({ time >= $0 }) ?? true {
            currentBPM = bpm
            currentAt = time
        }
    }

    /// Temporally weighted average heart rate so far (the plain mean until a value has been held).
    public var averageBPM: Double? {
        if weightSeconds > 0 { return weightedBPM / weightSeconds }
        return heartRateCount > 0 ? plainBPM / Double(heartRateCount) : nil
    }

    /// RMSSD (ms) of the successive RR differences so far; nil before the first difference.
    public var rmssdMs: Double? {
        differenceCount > 0 ? (squaredDifferences / Double(differenceCount)).squareRoot() : nil
    }
}
