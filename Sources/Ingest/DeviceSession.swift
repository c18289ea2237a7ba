import Foundation
import HealthModel
import HeartRate
import Logging
import LogFields
import SourceEvents

/// One device's ingest state: decodes its notifications, rebuilds the beat timeline, feeds the series builders
/// and rotates them. Pure logic driven by events and ticks; the pipeline does the I/O.
///
/// Times are the session's "effective" monotonic seconds (`EffectiveClock`): never going backwards.
///
/// The handling spans three files: connections and status here, a notification's values in `+Values`, the
/// series' rotation, deadlines and checkpoints in `+Series`. Its state is therefore internal, not private; only
/// `PipelineCore` holds a session.
struct DeviceSession: Sendable {
    let address: String
    let settings: IngestSettings
    let logger: Logger
    let makeUUID: @Sendable () -> UUID

    var connected = false
    /// What builders are created with: the clock, the device, the metadata every sample of the device carries (its
    /// serial number and body sensor location, and the session's tags), the settings and the UUID source. Kept
    /// whole and changed in place — rebuilt per value it copied the device's strings and metadata three or four
    /// times a notification.
    var context: SeriesContext
    var device: DeviceInfo {
        get { context.device }
        set {
            context.device = newValue
            context.metadata = Self.sampleMetadata(newValue).merging(sessionTags) { _, tag in tag }
        }
    }
    var clock: ClockMap {
        get { context.clock }
        set { context.clock = newValue }
    }
    var counters = IngestCounters()
    var seriesFinished = 0
    var lastNotificationWall: Date?
    var currentBPM: Int?
    /// The sensor's skin contact as its last notification said (nil: never said, or it cannot tell).
    var contact: Bool?
    private(set) var battery: Int?
    /// Whether the open series changed since the last checkpoint.
    var needsCheckpoint = false

    var timeline = BeatTimeline()
    /// A late stretch closed by a notification without RR, until a later arrival decides its place (`PlaceContest`).
    var contest: PlaceContest?
    var model = TimelineModel()
    var series = OpenSeriesSet()
    var energy = EnergyAccumulator()
    var time = EffectiveClock()

    init(address: String, at: Timestamp, settings: IngestSettings, logger: Logger, makeUUID: @escaping @Sendable () -> UUID) {
        self.address = address
        self.settings = settings
        self.makeUUID = makeUUID
        var logger = logger
        logger[field: .device] = "\(address)"
        self.logger = logger
        context = SeriesContext(clock: ClockMap(at), device: DeviceInfo(localIdentifier: address), metadata: [:],
                                settings: settings, makeUUID: makeUUID)
    }

    /// The tags of the session the device's series belong to (`setSessionTags`).
    private var sessionTags: Metadata = [:]

    private static func sampleMetadata(_ device: DeviceInfo) -> Metadata {
        var meta: Metadata = [:]
        for key in [MetadataKey.serialNumber, MetadataKey.bodySensorLocation] { meta[key] = device.metadata[key] }
        return meta
    }

    // MARK: events

    /// A connection: starts a fresh timeline and energy baseline (finishing anything left open as a disconnect).
    /// For a device already connected it only updates the device information (a client may learn the Device
    /// Information strings after connecting): nothing is missing, so nothing rotates or is flagged.
    mutating func connect(_ info: DeviceInfo?, at: Timestamp, effects: inout SessionEffects) {
        if let info {
            device = info.filling(from: device)  // what this connection could not read stays as known
            device.localIdentifier = address
        }
        if connected {
            guard info != nil else { return }
            series.updateDevice(context)
            effects.devices.append(device)
            return
        }
        if !series.isEmpty { finish(.disconnect, at: time.effective(at), effects: &effects) }
        connected = true
        timeline = BeatTimeline()
        model.reconnect()
        energy.reset()
        time = EffectiveClock()
        clock = ClockMap(at)
        effects.devices.append(device)
        effects.live.append(.connected(address: address, device: device, at: at.wall))
        logger.info("connected", metadata: ["name": "\(device.name ?? "")"])
    }

    mutating func disconnect(reason: DisconnectReason, at: Timestamp, effects: inout SessionEffects) {
        finish(.disconnect, at: time.effective(at), effects: &effects)
        connected = false
        currentBPM = nil
        contact = nil
        timeline.breakChain(.connection)
        effects.live.append(.disconnected(address: address, reason: reason, at: at.wall))
        logger.info("disconnected", metadata: ["reason": "\(reason)"])
    }

    mutating func setBattery(_ percent: Int, at: Timestamp, effects: inout SessionEffects) {
        battery = percent
        effects.live.append(.battery(address: address, percent: percent, at: at.wall))
    }

    /// The status `heartctl status` shows.
    var status: DeviceStatus {
        DeviceStatus(address: address, connected: connected, device: device, lastNotification: lastNotificationWall,
                     currentBPM: currentBPM, batteryPercent: battery, beatsInOpenSeries: series.beatCount,
                     seriesFinished: seriesFinished, counters: counters, contact: contact)
    }
}

extension DeviceSession {
    /// The device's series now belong to the session these tags name (`MetadataKey.session`/`sessionLabel`; empty:
    /// none). On a change the open series finish (`FinishReason.session`) and the beat chain continues, so no beat is
    /// lost and the next one is not flagged: every series belongs to at most one session (its first beats may have
    /// occurred up to one notification before the change: RR intervals arrive after their beats).
    mutating func setSessionTags(_ tags: Metadata, at: Timestamp, effects: inout SessionEffects) {
        guard tags != sessionTags else { return }
        finish(.session, at: time.effective(at), effects: &effects)
        sessionTags = tags
        context.metadata = Self.sampleMetadata(device).merging(tags) { _, tag in tag }
    }

    /// A checkpoint write failed: write again at the next interval, every series whole (the store may hold less
    /// than what was handed over).
    mutating func markCheckpointNeeded() {
        guard !series.isEmpty else { return }
        needsCheckpoint = true
        series.resendWhole()
    }
}
