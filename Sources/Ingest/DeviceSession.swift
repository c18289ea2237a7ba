import Foundation
import HealthModel
import HeartRate
import Logging
import LogFields
import SourceEvents

/// One device's ingest state: decodes its notifications, rebuilds the beat timeline, feeds the series builders
/// and rotates them. Pure logic driven by events and ticks; the pipeline does the I/O.
///
/// Times are the session's "effective" monotonic seconds: the source's monotonic time plus a shift that keeps
/// them from ever going backwards (a replay file whose time goes back, or a clock change, is re-anchored there).
struct DeviceSession: Sendable {
    let address: String
    let settings: IngestSettings
    let logger: Logger
    let makeUUID: @Sendable () -> UUID

    private(set) var connected = false
    /// What builders are created with: the clock, the device, the metadata every sample of the device carries (its
    /// serial number and body sensor location, and the session's tags), the settings and the UUID source. Kept
    /// whole and changed in place — rebuilt per value it copied the device's strings and metadata three or four
    /// times a notification.
    private var context: SeriesContext
    private(set) var device: DeviceInfo {
        get { context.device }
        set {
            context.device = newValue
            context.metadata = Self.sampleMetadata(newValue).merging(sessionTags) { _, tag in tag }
        }
    }
    private var clock: ClockMap {
        get { context.clock }
        set { context.clock = newValue }
    }
    private(set) var counters = IngestCounters()
    private(set) var seriesFinished = 0
    private(set) var lastNotificationWall: Date?
    private(set) var currentBPM: Int?
    private(set) var battery: Int?
    /// Whether the open series changed since the last checkpoint.
    private(set) var needsCheckpoint = false

    private var timeline = BeatTimeline()
    private var model = TimelineModel()
    private(set) var series = OpenSeriesSet()
    private var energy = EnergyAccumulator()
    private var monoShift = 0.0
    private var lastArrival: Double?

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

    private func effective(_ t: Timestamp) -> Double {
        max(t.monotonic + monoShift, lastArrival ?? -.infinity)
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
        if !series.isEmpty { finish(.disconnect, at: effective(at), effects: &effects) }
        connected = true
        timeline = BeatTimeline()
        model.reset()
        energy.reset()
        monoShift = 0
        lastArrival = nil
        clock = ClockMap(at)
        effects.devices.append(device)
        effects.live.append(.connected(address: address, device: device, at: at.wall))
        logger.info("connected", metadata: ["name": "\(device.name ?? "")"])
    }

    mutating func disconnect(reason: DisconnectReason, at: Timestamp, effects: inout SessionEffects) {
        finish(.disconnect, at: effective(at), effects: &effects)
        connected = false
        currentBPM = nil
        timeline.breakChain(.connection)
        effects.live.append(.disconnected(address: address, reason: reason, at: at.wall))
        logger.info("disconnected", metadata: ["reason": "\(reason)"])
    }

    mutating func setBattery(_ percent: Int, at: Timestamp, effects: inout SessionEffects) {
        battery = percent
        effects.live.append(.battery(address: address, percent: percent, at: at.wall))
    }

    mutating func notification(_ bytes: [UInt8], at: Timestamp, effects: inout SessionEffects) {
        if !connected { connect(nil, at: at, effects: &effects) }
        counters.notifications += 1
        lastNotificationWall = at.wall
        let measurement: HeartRateMeasurement?
        do {
            measurement = try HeartRateMeasurement(decoding: bytes)
        } catch {
            measurement = nil
            counters.malformedByCode[error.code.rawValue, default: 0] += 1
            let count = counters.malformedByCode[error.code.rawValue] ?? 1
            // Warn at the 1st, 2nd, 4th, 8th… of each code so a garbling sensor cannot flood the journal.
            logger.log(level: count & (count - 1) == 0 ? .warning : .debug, "malformed notification skipped", metadata: [
                "code": "\(error.code.rawValue)", "detail": "\(error.detail)", "bytes": "\(bytes.count)", "count": "\(count)"])
        }
        let rr = measurement?.rrIntervals ?? []
        let plausibleTicks = rr.reduce(0) { $0 + (BeatTimeline.isPlausible($1, settings: settings) ? Double($1) : 0) }
        let now = advanceClock(to: at, chainTicks: plausibleTicks, effects: &effects)
        if series.isEmpty && !timeline.isAnchored {
            // Nothing open refers to the old origin or clock mapping: start both afresh at this arrival.
            timeline.restart()
            clock = ClockMap(wall0: at.wall, mono0: now)
        }
        if let opened = series.openedAt, now - opened >= settings.maxDuration {
            finish(.maxDuration, at: now, effects: &effects)
        } else if series.isQuantitySeriesFull(limit: settings.maxValues) {
            // Before this notification's values: they open the next set, whose chain continues unflagged.
            finish(.maxValues, at: now, effects: &effects)
        }
        needsCheckpoint = true
        if settings.quietLossDetection { model.arrival(now) }
        guard let measurement else {
            breakChain(.malformedNotification, at: now, effects: &effects)
            return
        }
        let noContact = measurement.contact == .notDetected
        if noContact && !rr.isEmpty {
            // Only RR values ignored break the chain: without any, no beat was dropped here (an implied
            // predecessor after it would be the last beat stored, twice).
            counters.skippedRRNoContact += rr.count
            breakChain(.contactRegained, at: now, effects: &effects)
        } else if !rr.isEmpty {
            addBeats(rr, at: now, effects: &effects)
        } else if timeline.isAnchored {
            model.arrivedWithoutRR(bpm: Int(measurement.bpm))
            if model.suspect != nil { releaseHeld(at: now, effects: &effects) }
        }
        addHeartRate(measurement, noContact: noContact, at: now, effects: &effects)
        if let reading = measurement.energyKilojoules, let inc = energy.add(reading, at: now) {
            record { (s: inout OpenSeriesSet, c) throws(SeriesBuilderError) in
                try s.addEnergy(inc.kilojoules, start: inc.start, end: inc.end, context: c)
            }
        }
    }

    /// Moves the session clock to `at` and applies the time-based rules; returns the effective time.
    private mutating func advanceClock(to at: Timestamp, chainTicks: Double, effects: inout SessionEffects) -> Double {
        var now = at.monotonic + monoShift
        defer { lastArrival = now }
        guard let last = lastArrival else { return now }
        if now < last, last - now <= settings.clockTolerance {
            // Jitter in a recorded clock (a little back): time stood still for this event only (no lasting
            // shift, which would accumulate); the chain and the drift check carry on.
            now = last
        } else if now < last {
            // Time jumped backwards: pretend it stood still (or that the chain continued), re-anchor and flag.
            var target = last
            if let position = timeline.positionSeconds, chainTicks > 0 {
                target = max(target, position + chainTicks / BeatTimeline.ticksPerSecond)
            }
            monoShift += target - now
            logger.warning("monotonic clock went backwards; re-anchoring", metadata: ["by": "\(target - now)"])
            now = target
            breakChain(.clockBackwards, at: now, effects: &effects)
        } else if now - last > settings.idleTimeout {
            finish(.idle, at: now, effects: &effects)
            timeline.breakChain(.notificationGap)
        } else if now - last > settings.gapThreshold {
            breakChain(.notificationGap, at: now, effects: &effects)
        }
        return now
    }

    /// Breaks the beat chain after storing the beats held back (they came before the break).
    private mutating func breakChain(_ reason: GapReason, at now: Double, effects: inout SessionEffects) {
        releaseHeld(at: now, effects: &effects)
        timeline.breakChain(reason)
    }

    /// Stores the beats held back for confirmation as they are: what came next cannot decide, or the series ends.
    private mutating func releaseHeld(at now: Double, effects: inout SessionEffects) {
        let beats = timeline.releaseHeld()
        if !beats.isEmpty { store(beats, at: now, effects: &effects) }
    }

    private mutating func addBeats(_ rr: [UInt16], at now: Double, effects: inout SessionEffects) {
        // A new suspect slot since the held notification: the next check could not tell which one lost beats.
        if timeline.isHolding && model.suspect != nil { releaseHeld(at: now, effects: &effects) }
        let result = timeline.ingest(rr, arrival: now, bounds: settings.quietLossDetection ? model.bounds : nil,
                                     settings: settings)
        if result.anchored { model.forgetOffset() }
        if let end = timeline.positionSeconds { model.chainEnded(at: end) }
        counters.droppedRR += result.implausible
        counters.droppedBeatsOutOfOrder += result.overlapping
        if result.implausible > 0 {
            logger.debug("implausible RR dropped", metadata: ["count": "\(result.implausible)"])
        }
        store(result.beats, at: now, effects: &effects)
    }

    private mutating func store(_ beats: [TimelineBeat], at now: Double, effects: inout SessionEffects) {
        var live: [LiveBeat] = []
        live.reserveCapacity(beats.count)
        for beat in beats {
            // Rotate before the builder would refuse: this beat opens the next series, unflagged (nothing is missing).
            if series.isHeartbeatSeriesFull { finish(.maxBeats, at: now, effects: &effects) }
            guard let seconds = timeline.seconds(ofTicks: beat.ticks) else { continue }
            let added = record { (s: inout OpenSeriesSet, c) throws(SeriesBuilderError) in
                try s.addBeat(ticks: beat.ticks, seconds: seconds, precededByGap: beat.gap != nil, context: c)
            }
            guard added else { continue }
            counters.beats += 1
            if let gap = beat.gap { counters.gapsByRule[gap.rawValue, default: 0] += 1 }
            live.append(LiveBeat(time: clock.date(seconds), precededByGap: beat.gap != nil))
        }
        if !live.isEmpty { effects.live.append(.beats(address: address, beats: live)) }
    }

    private mutating func addHeartRate(_ m: HeartRateMeasurement, noContact: Bool, at now: Double, effects: inout SessionEffects) {
        if noContact || m.bpm == 0 {
            if noContact { counters.skippedHRNoContact += 1 } else { counters.skippedHRZero += 1 }
            currentBPM = nil
            record { (s: inout OpenSeriesSet, c) throws(SeriesBuilderError) in try s.endHeartRate(at: now, context: c) }
            return
        }
        currentBPM = Int(m.bpm)
        record { (s: inout OpenSeriesSet, c) throws(SeriesBuilderError) in
            try s.setHeartRate(Double(m.bpm), at: now, context: c)
        }
        effects.live.append(.heartRate(address: address, bpm: Int(m.bpm), at: clock.date(now)))
    }

    /// Runs a builder operation; a refusal is counted and logged (the pipeline never throws on data).
    @discardableResult
    private mutating func record(_ body: (inout OpenSeriesSet, SeriesContext) throws(SeriesBuilderError) -> Void) -> Bool {
        do {
            try body(&series, context)
            return true
        } catch {
            counters.builderErrors += 1
            logger.error("series builder refused a value", metadata: ["error": "\(error)"])
            return false
        }
    }

    // MARK: time and rotation

    /// Idle timeout and maximum duration, checked against a clock tick.
    mutating func tick(now: Timestamp, effects: inout SessionEffects) {
        guard !series.isEmpty, let last = lastArrival else { return }
        let t = now.monotonic + monoShift
        guard t >= last else { return }
        if t - last > settings.gapThreshold { releaseHeld(at: t, effects: &effects) }
        if t - last > settings.idleTimeout {
            finish(.idle, at: t, effects: &effects)
            timeline.breakChain(.notificationGap)
        } else if let opened = series.openedAt, t - opened >= settings.maxDuration {
            finish(.maxDuration, at: t, effects: &effects)
        }
    }

    /// When (on the source's monotonic clock) `tick` would finish the open series: the idle timeout or the
    /// maximum duration, whichever comes first; `nil` with no open series.
    var tickDeadline: Double? {
        guard !series.isEmpty, let last = lastArrival else { return nil }
        var deadline = last + settings.idleTimeout
        if let opened = series.openedAt { deadline = min(deadline, opened + settings.maxDuration) }
        return deadline - monoShift + 0.001  // tick needs "past", not "at"
    }

    /// The open series as samples with their data so far (for queries while capturing; changes nothing).
    func openSeries(now: Timestamp) -> [Sample] {
        series.isEmpty ? [] : series.snapshot(at: effective(now), context: context)
    }

    /// What a checkpoint hands the store of the open series (whole, or what they appended since the last one),
    /// if they changed since the last one.
    mutating func checkpoint(now: Timestamp) -> [SeriesCheckpoint]? {
        guard needsCheckpoint else { return nil }
        needsCheckpoint = false
        guard !series.isEmpty else { return nil }
        return series.checkpoint(at: effective(now), clock: clock, gapThreshold: settings.gapThreshold)
    }

    /// Finishes the open series (shutdown, end of a replay). The next beat, if any, is flagged.
    mutating func finishAll(_ reason: FinishReason, at: Timestamp, effects: inout SessionEffects) {
        finish(reason, at: effective(at), effects: &effects)
        timeline.breakChain(.connection)
    }

    private mutating func finish(_ reason: FinishReason, at time: Double, effects: inout SessionEffects) {
        releaseHeld(at: time, effects: &effects)
        guard let batch = series.finish(reason: reason, at: time, context: context) else { return }
        seriesFinished += batch.closingCheckpoints.count
        effects.batches.append((batch, reason))
        for sample in batch.samples {
            effects.live.append(.seriesFinished(address: address, uuid: sample.uuid,
                                                typeIdentifier: sample.typeIdentifier, reason: reason))
        }
        logger.debug("series finished", metadata: ["reason": "\(reason.rawValue)", "samples": "\(batch.samples.count)"])
    }

    /// The status `heartctl status` shows.
    var status: DeviceStatus {
        DeviceStatus(address: address, connected: connected, device: device, lastNotification: lastNotificationWall,
                     currentBPM: currentBPM, batteryPercent: battery, beatsInOpenSeries: series.beatCount,
                     seriesFinished: seriesFinished, counters: counters)
    }
}

extension DeviceSession {
    /// The device's series now belong to the session these tags name (`MetadataKey.session`/`sessionLabel`; empty:
    /// none). On a change the open series finish (`FinishReason.session`) and the beat chain continues, so no beat is
    /// lost and the next one is not flagged: every series belongs to at most one session (its first beats may have
    /// occurred up to one notification before the change: RR intervals arrive after their beats).
    mutating func setSessionTags(_ tags: Metadata, at: Timestamp, effects: inout SessionEffects) {
        guard tags != sessionTags else { return }
        finish(.session, at: effective(at), effects: &effects)
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
