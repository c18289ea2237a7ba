import Foundation

/// `status.sessions[]`: an active session with its statistics so far, which the daemon keeps up to date as values
/// arrive (`HealthModel.LiveSessionStatistics`), so `status` never reads the store for them.
public struct ActiveSessionStatus: Sendable, Codable, Hashable {
    public var uuid: UUID
    public var label: String?
    public var start: Date
    /// The addresses it covers; empty = every sensor.
    public var devices: [String]
    public var elapsedSeconds: Double
    public var beats: Int
    /// The latest heart rate of any of its devices.
    public var currentBPM: Double?
    /// Temporally weighted average heart rate so far.
    public var averageBPM: Double?
    /// RMSSD so far (ms), never across a gap; absent before two RR intervals in a row.
    public var rmssdMs: Double?
    /// The latest live DFA α1 reading of each of its devices that streams (absent from daemons before it).
    public var dfaAlpha1: [WatchPayload.DFAAlpha1]?

    public init(uuid: UUID, label: String?, start: Date, devices: [String], elapsedSeconds: Double, beats: Int,
                currentBPM: Double?, averageBPM: Double?, rmssdMs: Double?,
                dfaAlpha1: [WatchPayload.DFAAlpha1]? = nil) {
        self.uuid = uuid
        self.label = label
        self.start = start
        self.devices = devices
        self.elapsedSeconds = elapsedSeconds
        self.beats = beats
        self.currentBPM = currentBPM
        self.averageBPM = averageBPM
        self.rmssdMs = rmssdMs
        self.dfaAlpha1 = dfaAlpha1
    }

    enum CodingKeys: String, CodingKey {
        case uuid, label, start, devices, elapsedSeconds = "elapsed_s", beats, currentBPM, averageBPM, rmssdMs, dfaAlpha1
    }
}
