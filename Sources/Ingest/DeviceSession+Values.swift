import Foundation
import HealthModel
import HeartRate
import Logging
import SourceEvents

/// A notification: decoded, its RR intervals turned into beats on the timeline, its heart rate and energy recorded.
extension DeviceSession {
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
        noteContact(measurement.contact, at: now, effects: &effects)
        if noContact && !rr.isEmpty {
            // Only RR values ignored break the chain: without any, no beat was dropped here (an implied
            // predecessor after it would be the last beat stored, twice).
            counters.skippedRRNoContact += rr.count
            breakChain(.contactRegained, at: now, effects: &effects)
        } else if !rr.isEmpty {
            addBeats(rr, at: now, effects: &effects)
        } else if timeline.isAnchored {
            model.arrivedWithoutRR(bpm: Int(measurement.bpm), contact: !noContact)
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
        let (now, step) = time.advance(to: at, settings: settings)
        switch step {
        case .steady:
            break
        case .gap:
            breakChain(.notificationGap, at: now, effects: &effects)
        case .idle:
            finish(.idle, at: now, effects: &effects)
            timeline.breakChain(.notificationGap)
        case .backwards(let last):
            // Time jumped backwards: pretend it stood still (or that the chain continued), re-anchor and flag.
            var target = last
            if let position = timeline.positionSeconds, chainTicks > 0 {
                target = max(target, position + chainTicks / BeatTimeline.ticksPerSecond)
            }
            time.reanchor(from: now, to: target)
            logger.warning("monotonic clock went backwards; re-anchoring", metadata: ["by": "\(target - now)"])
            breakChain(.clockBackwards, at: target, effects: &effects)
            return target
        }
        return now
    }

    /// Breaks the beat chain after storing the beats held back (they came before the break).
    private mutating func breakChain(_ reason: GapReason, at now: Double, effects: inout SessionEffects) {
        releaseHeld(at: now, effects: &effects)
        timeline.breakChain(reason)
    }

    /// Stores the beats held back for confirmation as they are: what came next cannot decide, or the series ends.
    mutating func releaseHeld(at now: Double, effects: inout SessionEffects) {
        let beats = timeline.releaseHeld()
        if !beats.isEmpty { store(beats, at: now, effects: &effects) }
    }

    private mutating func addBeats(_ rr: [UInt16], at now: Double, effects: inout SessionEffects) {
        // A new suspect slot since the held notifications: the next check could not tell which one lost beats.
        if timeline.isHolding && model.suspect != nil { releaseHeld(at: now, effects: &effects) }
        if settings.quietLossDetection {
            let plausible = rr.reduce(0) { $0 + (BeatTimeline.isPlausible($1, settings: settings) ? Int($1) : 0) }
            model.arrivedWithRR(rrSum: Double(plausible) / BeatTimeline.ticksPerSecond)
        }
        // Slots without RR since the last beat, shorter than the RR that joins them: beats were lost there.
        if settings.quietLossDetection, timeline.isAnchored,
           let first = rr.first(where: { BeatTimeline.isPlausible($0, settings: settings) }),
           model.lossIsCertain(firstRR: Double(first) / BeatTimeline.ticksPerSecond) {
            breakChain(model.certainLossReason, at: now, effects: &effects)
        }
        if settings.quietLossDetection { notePlace() }
        if model.maySuspect { timeline.closeLateStretch() }
        let heldSends = settings.quietLossDetection
            ? timeline.heldSlots.map { slot in
                slot.flatMap { model.previousSend(before: $0, afterSuspect: timeline.heldAfterSuspect) }
            } : []
        let result = timeline.ingest(rr, arrival: now, bounds: settings.quietLossDetection ? model.bounds : nil,
                                     slot: settings.quietLossDetection ? model.slot : nil, heldPreviousSends: heldSends,
                                     settings: settings)
        if result.anchored { model.forgetOffset() }
        var beats = result.beats
        if let correction = result.correction {
            // Decided late: the stored stretch is corrected; live watchers got it already, so they see this
            // notification's first beat flagged (the interval to their last beat is not the RR).
            if series.correctBeats(fromTicks: correction.firstTicks, shift: correction.shift) {
                counters.gapsByRule[correction.reason.rawValue, default: 0] += 1
                logger.debug("loss decided late; stored beats corrected", metadata: ["shift": "\(correction.shift)"])
            } else if !beats.isEmpty {
                beats[0].gap = .chainBehind
            }
        }
        if let end = timeline.positionSeconds { model.chainEnded(at: end) }
        counters.droppedRR += result.implausible
        counters.droppedBeatsOutOfOrder += result.overlapping
        if result.implausible > 0 {
            logger.debug("implausible RR dropped", metadata: ["count": "\(result.implausible)"])
        }
        store(beats, at: now, liveGapFirst: result.correction != nil, effects: &effects)
        if settings.quietLossDetection, contest != nil { contestPlaces(result) }
    }

    /// Adds beats to the open series and reports them live; `liveGapFirst`: the first is reported flagged to live
    /// watchers though not stored so (a late decision moved the beats before it in the store only).
    private mutating func store(_ beats: [TimelineBeat], at now: Double, liveGapFirst: Bool = false,
                                effects: inout SessionEffects) {
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
            live.append(LiveBeat(time: clock.date(seconds), precededByGap: beat.gap != nil || liveGapFirst && live.isEmpty))
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

    /// A `contact` live event when the sensor's skin contact changes (or is first reported); sensors that cannot
    /// tell say nothing.
    private mutating func noteContact(_ reported: SensorContact, at now: Double, effects: inout SessionEffects) {
        let detected: Bool
        switch reported {
        case .detected: detected = true
        case .notDetected: detected = false
        case .notSupported: return
        }
        guard contact != detected else { return }
        contact = detected
        effects.live.append(.contact(address: address, detected: detected, at: clock.date(now)))
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
}
