import Foundation
import HealthModel
import SourceEvents

/// The series one device is currently building: heartbeats, heart rate and active energy. They are finished
/// together (a "set") on rotation. Builders are created lazily at their first value, so an open builder is
/// never empty and its UUID is stable from the first checkpoint to the finished sample.
///
/// Heart-rate weighting: each value holds from its arrival until the next notification arrives, capped at
/// `gapThreshold`; the last value of a series holds until the event that finishes the series (same cap).
struct OpenSeriesSet: Sendable {
    private(set) var heartbeats: HeartbeatSeriesBuilder?
    /// Timeline ticks of the heartbeat series start (its first beat).
    private(set) var heartbeatBaseTicks = 0
    private(set) var heartRate: QuantitySeriesBuilder?
    /// The latest heart-rate value, not yet inserted because its end is not known: (bpm, monotonic start).
    private(set) var pendingHeartRate: (value: Double, start: Double)?
    private(set) var energy: QuantitySeriesBuilder?
    private var lastEnergyPoint: (start: Date, value: Double)?
    /// Monotonic seconds of the earliest content (for `maxDuration`).
    private(set) var openedAt: Double?
    /// What the last checkpoint handed over of each series (nil: nothing yet, the next checkpoint sends it whole).
    private var handedBeats: Int?
    /// The first beat a late decision rewrote since the last checkpoint (`correctBeats`).
    private var rewrittenBeatsFrom: Int?
    private var handedHeartRate: HandedPoints?
    private var handedEnergy: HandedPoints?

    var isEmpty: Bool { heartbeats == nil && heartRate == nil && energy == nil }
    var beatCount: Int { heartbeats?.count ?? 0 }
    var isHeartbeatSeriesFull: Bool { heartbeats?.isFull ?? false }
    /// Whether the heart-rate or energy series holds `limit` values (the held heart-rate value counts): one more
    /// notification could exceed it, so the set rotates first.
    func isQuantitySeriesFull(limit: Int) -> Bool {
        (heartRate?.count ?? 0) + (pendingHeartRate == nil ? 0 : 1) >= limit || (energy?.count ?? 0) >= limit
    }

    /// Adds a beat at timeline `ticks` (seconds of the tick given as `seconds`). Opens the heartbeat series at the
    /// first beat. Throws when the builder refuses (out of order or full; callers prevent both).
    mutating func addBeat(ticks: Int, seconds: Double, precededByGap: Bool, context: SeriesContext) throws(SeriesBuilderError) {
        if heartbeats == nil {
            heartbeats = HeartbeatSeriesBuilder(
                start: context.clock.date(seconds), maximumCount: context.settings.maxBeats,
                device: context.device, metadata: context.metadata, uuid: context.makeUUID())
            heartbeatBaseTicks = ticks
            noteOpened(seconds)
        }
        try heartbeats?.addBeat(at: Double(ticks - heartbeatBaseTicks) / BeatTimeline.ticksPerSecond,
                                precededByGap: precededByGap)
    }

    /// Starts holding a heart-rate value from `time`; the previous value ends here.
    mutating func setHeartRate(_ bpm: Double, at time: Double, context: SeriesContext) throws(SeriesBuilderError) {
        try endHeartRate(at: time, context: context)
        if heartRate == nil {
            heartRate = QuantitySeriesBuilder(
                type: .heartRate, start: context.clock.date(time), device: context.device,
                metadata: context.metadata, uuid: context.makeUUID())
            noteOpened(time)
        }
        pendingHeartRate = (bpm, time)
    }

    /// Ends the held heart-rate value at `time` (capped at `gapThreshold` after its start).
    mutating func endHeartRate(at time: Double, context: SeriesContext) throws(SeriesBuilderError) {
        guard let pending = pendingHeartRate else { return }
        pendingHeartRate = nil
        let end = max(pending.start, min(time, pending.start + context.settings.gapThreshold))
        try heartRate?.insert(pending.value, start: context.clock.date(pending.start), end: context.clock.date(end))
    }

    /// Adds an energy increment over [start, end] (monotonic seconds). Two increments starting at the same
    /// instant are summed (a plain insert would replace the first).
    mutating func addEnergy(_ kilojoules: Double, start: Double, end: Double, context: SeriesContext) throws(SeriesBuilderError) {
        let startDate = context.clock.date(start)
        if energy == nil {
            energy = QuantitySeriesBuilder(
                type: .activeEnergyBurned, start: startDate, device: context.device,
                metadata: context.metadata, uuid: context.makeUUID())
            noteOpened(start)
        }
        var value = kilojoules
        if let last = lastEnergyPoint, last.start == startDate { value += last.value }
        try energy?.insert(value, start: startDate, end: context.clock.date(end))
        lastEnergyPoint = (startDate, value)
    }

    /// Gives the open builders new device information (learnt after they were opened); the next checkpoint sends
    /// them whole.
    mutating func updateDevice(_ context: SeriesContext) {
        resendWhole()
        heartbeats?.device = context.device
        heartbeats?.metadata.merge(context.metadata) { _, new in new }
        heartRate?.device = context.device
        heartRate?.metadata.merge(context.metadata) { _, new in new }
        energy?.device = context.device
        energy?.metadata.merge(context.metadata) { _, new in new }
    }

    /// The open series as samples (what a checkpoint stores): exactly what finishing at `time` would give,
    /// without the finish reason.
    func snapshot(at time: Double, context: SeriesContext) -> [Sample] {
        var copy = self
        return copy.finishSamples(at: time, extra: [:], context: context).samples
    }

    /// Finishes every series of the set and returns the batch to save (nil when the set is empty).
    /// The set is empty afterwards.
    mutating func finish(reason: FinishReason, at time: Double, context: SeriesContext) -> PendingBatch? {
        guard !isEmpty else { return nil }
        let result = finishSamples(at: time, extra: [MetadataKey.finishReason: reason.rawValue], context: context)
        var batch = PendingBatch(samples: result.samples, closingCheckpoints: result.builders)
        if let hb = result.heartbeatSeries, var hrv = hb.derivedHRVSample(uuid: context.makeUUID()) {
            // The HRV sample carries the series' metadata too (finish reason, serial, location), plus its link.
            hrv.metadata.merge(hb.metadata) { link, _ in link }
            batch.samples.append(.quantity(hrv))
        }
        self = OpenSeriesSet()
        return batch
    }

    private mutating func finishSamples(at time: Double, extra: Metadata, context: SeriesContext)
        -> (samples: [Sample], builders: [UUID], heartbeatSeries: HeartbeatSeriesSample?) {
        try? endHeartRate(at: time, context: context)
        var samples: [Sample] = []
        var builders: [UUID] = []
        var series: HeartbeatSeriesSample?
        if var hb = heartbeats {
            builders.append(hb.uuid)
            series = hb.finish(metadata: extra)
            if let series { samples.append(.heartbeatSeries(series)) }
        }
        for var builder in [heartRate, energy].compactMap({ $0 }) {
            builders.append(builder.uuid)
            if let sample = builder.finish(metadata: extra) { samples.append(.quantity(sample)) }
        }
        return (samples, builders, series)
    }

    private mutating func noteOpened(_ time: Double) {
        openedAt = min(openedAt ?? time, time)
    }
}

/// What the last checkpoint held of a quantity series: the builder's points then, and all its items (plus the held value).
struct HandedPoints: Sendable {
    var committed: Int
    var total: Int
}

extension OpenSeriesSet {
    /// What a checkpoint at `time` hands the store (`SeriesCheckpoint`): each series whole the first time and after
    /// `resendWhole()`, otherwise only what it appended or rewrote since the previous checkpoint — which, applied,
    /// gives exactly what `snapshot(at:)` holds. A series that did not change is left out. Costs what the series
    /// added, not its length: no sample is built, no aggregate computed.
    mutating func checkpoint(at time: Double, clock: ClockMap, gapThreshold: Double) -> [SeriesCheckpoint] {
        var out: [SeriesCheckpoint] = []
        out.reserveCapacity(3)
        if let beats = heartbeatCheckpoint() { out.append(beats) }
        var held: QuantityPoint?
        if let pending = pendingHeartRate {
            let end = max(pending.start, min(time, pending.start + gapThreshold))
            held = QuantityPoint(value: pending.value, start: clock.date(pending.start), end: clock.date(end))
        }
        if let change = Self.checkpoint(&heartRate, handed: &handedHeartRate, held: held) { out.append(change) }
        if let change = Self.checkpoint(&energy, handed: &handedEnergy, held: nil) { out.append(change) }
        return out
    }

    /// The next checkpoint sends every series whole (a failed write, new metadata or device).
    mutating func resendWhole() {
        handedBeats = nil
        rewrittenBeatsFrom = nil
        handedHeartRate = nil
        handedEnergy = nil
    }

    /// Beats append; a late decision rewrites the tail from the beat it flagged (`correctBeats`). (The builders
    /// are read in place, not copied: a copy retains its device and metadata.)
    private mutating func heartbeatCheckpoint() -> SeriesCheckpoint? {
        guard let count = heartbeats?.count, let last = heartbeats?.lastOffset, let start = heartbeats?.start,
              let uuid = heartbeats?.uuid else { return nil }
        defer { (handedBeats, rewrittenBeatsFrom) = (count, nil) }
        guard let handed = handedBeats else {
            var copy = heartbeats
            return copy?.finish().map { .full(.heartbeatSeries($0)) }
        }
        let keep = min(handed, rewrittenBeatsFrom ?? handed)
        guard count > keep, let beats = heartbeats?.beats[keep...] else { return nil }
        return .appended(SeriesAppend(uuid: uuid, after: handed, keeping: keep, items: .beats(Array(beats)),
                                      end: start.addingTimeInterval(last)))
    }

    /// A late decision (`LateCorrection`): the beat at timeline `fromTicks` and every later one move later by
    /// `shift` ticks, and that beat is flagged; with `untilTicks`, only those before that beat move, and it is no
    /// longer flagged (`PlaceContest`). False when the open series does not hold them (it rotated since).
    mutating func correctBeats(fromTicks: Int, shift: Int, untilTicks: Int? = nil) -> Bool {
        guard let old = heartbeats else { return false }
        let offset = Double(fromTicks - heartbeatBaseTicks) / BeatTimeline.ticksPerSecond
        guard shift > 0, let index = old.beats.lastIndex(where: { $0.offset == offset }) else { return false }
        let until = untilTicks.map { Double($0 - heartbeatBaseTicks) / BeatTimeline.ticksPerSecond }
        let end = until.map { u in old.beats.lastIndex { $0.offset == u } } ?? old.beats.count
        guard let end, end > index else { return false }
        var rebuilt = HeartbeatSeriesBuilder(start: old.start, maximumCount: old.maximumCount, device: old.device,
                                             metadata: old.metadata, uuid: old.uuid)
        let moved = Double(shift) / BeatTimeline.ticksPerSecond
        do {
            for (k, beat) in old.beats.enumerated() {
                try rebuilt.addBeat(at: k < index || k >= end ? beat.offset : beat.offset + moved,
                                    precededByGap: k == index || k != end && beat.precededByGap)
            }
        } catch {
            return false
        }
        heartbeats = rebuilt
        rewrittenBeatsFrom = min(rewrittenBeatsFrom ?? index, index)
        return true
    }

    /// A quantity series with `held` (the heart-rate value still held) as its last point, as `finish` would insert
    /// it. The points from the first one rewritten since the previous checkpoint (or from the previous held value)
    /// on are sent; a held value that would not append (it starts at or before the last point) sends it whole.
    private static func checkpoint(_ builder: inout QuantitySeriesBuilder?, handed: inout HandedPoints?,
                                   held: QuantityPoint?) -> SeriesCheckpoint? {
        guard let points = builder?.sortedPoints, let uuid = builder?.uuid, let start = builder?.start,
              let rewrittenFrom = builder?.rewrittenFrom else { return nil }
        defer { builder?.clearRewrites() }
        // `insert` would refuse it (and `finish` leave it out); values and times come from the session, so never.
        let held = held.flatMap { $0.value.isFinite && $0.start >= start ? $0 : nil }
        let appends = held.map { h in points.last.map { $0.start < h.start } ?? true } ?? true
        if let previous = handed, appends {
            let keep = min(rewrittenFrom, previous.committed)
            var items: [QuantityPoint] = []
            items.reserveCapacity(points.count - keep + 1)
            items += points[keep...]
            if let held { items.append(held) }
            handed = HandedPoints(committed: points.count, total: keep + items.count)
            var end = builder?.latestEnd ?? .distantPast
            if let held, held.end > end { end = held.end }
            let change = SeriesAppend(uuid: uuid, after: previous.total, keeping: keep, items: .points(items), end: end)
            return change.isEmpty ? nil : .appended(change)
        }
        var copy = builder
        if let held { try? copy?.insert(held.value, start: held.start, end: held.end) }
        guard let sample = copy?.finish() else {
            handed = nil
            return nil
        }
        handed = HandedPoints(committed: points.count, total: sample.points.count)
        return .full(.quantity(sample))
    }
}
