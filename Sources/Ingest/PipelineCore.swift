import Foundation
import HealthModel
import Logging
import SourceEvents
import Synchronization

/// The pipeline's state and logic (see `IngestPipeline`); callers hold its lock.
struct PipelineCore {
    let settings: IngestSettings
    private let logger: Logger
    private let makeUUID: @Sendable () -> UUID

    /// Sessions in boxes: a session changes in place, without a copy out of the dictionary and back (a copy left
    /// behind would also share the builders' storage and make every insert copy the whole open series).
    private var sessions: [String: SessionSlot] = [:]
    /// The session of the previous event (sessions are never removed).
    private var lastSlot: SessionSlot?
    /// Which session each device's series belong to.
    private var tagging = SessionTagging([])
    private var output: PipelineOutput
    /// `handle`'s effects, kept between events for their arrays' storage.
    private var reusedEffects = SessionEffects()
    private var lastCheckpoint: Double?
    private var lastEventTime: Timestamp?
    /// Live use: the real clock and when on it things happened; `onDeadline` learns when the next `tickLive` is needed.
    private var live: LiveSchedule
    var onDeadline: (@Sendable (Double?) -> Void)? {
        get { live.onDeadline }
        set { live.onDeadline = newValue }
    }

    /// - Parameters:
    ///   - sink: where finished samples, checkpoints and devices go (the store).
    ///   - logger: used with `device` metadata per session (default: discards everything).
    ///   - makeUUID: sample UUIDs (inject a deterministic one for reproducible replays).
    ///   - onLiveEvent: called synchronously, on the pipeline, for every live event; keep it cheap.
    init(settings: IngestSettings, sink: any SeriesSink, logger: Logger, makeUUID: @escaping @Sendable () -> UUID,
         liveClock: @escaping @Sendable () -> Double, onLiveEvent: (@Sendable (LiveEvent) -> Void)?) {
        self.settings = settings
        self.live = LiveSchedule(clock: liveClock)
        self.logger = logger
        self.makeUUID = makeUUID
        self.output = PipelineOutput(sink: sink, logger: logger, capacityBeats: settings.memoryBufferBeats,
                                     onLiveEvent: onLiveEvent)
    }

    /// Handles one source event.
    mutating func handle(_ event: SourceEvent) {
        lastEventTime = event.at
        let address = event.address
        let slot: SessionSlot
        if let last = lastSlot, last.address == address {
            slot = last  // most events are the same sensor's as the one before: no hashing
        } else if let existing = sessions[address] {
            slot = existing
        } else {
            slot = SessionSlot(DeviceSession(address: address, at: event.at, settings: settings, logger: logger,
                                             makeUUID: makeUUID))
            sessions[address] = slot
            var none = SessionEffects() // nothing is open yet, so nothing finishes
            slot.session.setSessionTags(tagging.tags(for: address), at: event.at, effects: &none)
        }
        lastSlot = slot
        // The effects buffer is the pipeline's, emptied and reused: a notification allocates no array for them.
        var effects = SessionEffects()
        swap(&effects, &reusedEffects)
        defer {
            effects.clear()
            swap(&effects, &reusedEffects)
        }
        switch event {
        case .connected(_, let info, let at): slot.session.connect(info, at: at, effects: &effects)
        case .notification(_, let bytes, let at): slot.session.notification(bytes, at: at, effects: &effects)
        case .disconnected(_, let reason, let at): slot.session.disconnect(reason: reason, at: at, effects: &effects)
        case .battery(_, let percent, let at): slot.session.setBattery(percent, at: at, effects: &effects)
        }
        output.deliver(effects)
    }

    /// Applies idle timeouts and maximum durations, retries a failed sink, and writes checkpoints of the open
    /// series when `checkpointInterval` has passed since the last ones. Live use: call about once a second with
    /// `Timestamp.now()`; replay: call with the file's time after each event.
    mutating func tick(now: Timestamp) {
        tickSessions(now: now)
        if let last = lastCheckpoint, now.monotonic - last < settings.checkpointInterval, now.monotonic >= last { return }
        writeCheckpoints(now: now)
    }

    /// Idle timeouts and maximum durations at `now` (source time), and a retry of a failing sink.
    private mutating func tickSessions(now: Timestamp) {
        var effects = SessionEffects()
        if sessions.count == 1, let only = sessions.first?.value {
            only.session.tick(now: now, effects: &effects)  // a replay ticks after every event: no sort, no array
        } else {
            for address in sessions.keys.sorted() {
                sessions[address]?.session.tick(now: now, effects: &effects)
            }
        }
        output.deliver(effects)
    }

    // MARK: live time (no periodic tick)

    /// A live event: handled (which also retries a failing sink); then, when their time has come, the idle/maximum-duration rules (source time)
    /// and a checkpoint (real time: at most one per `checkpointInterval`, whatever the source's clock does — a
    /// simulator running 200× fast must not checkpoint 200 times a second); then the next deadline published.
    /// A stream notifying about once per interval thus checkpoints from its own events and never needs the timer.
    mutating func handleLive(_ event: SourceEvent) {
        handle(event)
        let real = live.clock()
        live.lastEvent = real
        var sessionsDue = sessionDeadline()
        if let due = sessionsDue, event.at.monotonic >= due {
            tickSessions(now: event.at)
            sessionsDue = sessionDeadline()
        }
        checkpointIfDue(real: real, at: event.at)
        publishDeadline(sessionsDue: sessionsDue, force: false)
    }

    /// The timer's tick at `now` (real time).
    mutating func tickLive(now: Timestamp) {
        let real = live.clock()
        tickSessions(now: now)
        live.lastRetry = real
        checkpointIfDue(real: real, at: now)
        publishDeadline(sessionsDue: sessionDeadline(), force: true)  // the timer has just cleared what fired
    }

    private mutating func checkpointIfDue(real: Double, at: Timestamp) {
        guard real >= (live.lastCheckpoint ?? -.infinity) + settings.checkpointInterval, anyChanged else { return }
        live.lastCheckpoint = real
        writeCheckpoints(now: at)
    }

    private var anyChanged: Bool { sessions.values.contains { $0.session.needsCheckpoint } }

    /// The earliest idle timeout or maximum duration of an open series (source time).
    private func sessionDeadline() -> Double? {
        var earliest: Double?
        for slot in sessions.values {
            if let d = slot.session.tickDeadline, d < earliest ?? .infinity { earliest = d }
        }
        return earliest
    }

    /// Tells the observer the next deadline (`force`: always; else only when it moved: `LiveSchedule.publish`).
    mutating func publishDeadline(sessionsDue: Double?, force: Bool) {
        guard live.onDeadline != nil else { return }
        live.publish(nextLiveDeadline(sessionsDue: sessionsDue), force: force)
    }

    func publishDeadline() {
        onDeadline?(nextLiveDeadline(sessionsDue: sessionDeadline()))
    }

    /// When the timer must tick (real CLOCK_MONOTONIC seconds; `nil`: not before the next event): `LiveSchedule.deadline`.
    func nextLiveDeadline(sessionsDue: Double?) -> Double? {
        live.deadline(sessionsDue: sessionsDue, interval: settings.checkpointInterval, changed: anyChanged,
                      sinkPending: output.hasPending)
    }

    mutating func setActiveSessions(_ active: [Session], at: Timestamp) {
        retag(SessionTagging(active, people: Array(tagging.wearers.values)), at: at)
    }

    mutating func setPeople(_ people: [Person], at: Timestamp) {
        retag(SessionTagging(tagging.active, people: people), at: at)
    }

    private mutating func retag(_ tagging: SessionTagging, at: Timestamp) {
        self.tagging = tagging
        var effects = SessionEffects()
        for address in sessions.keys.sorted() {
            sessions[address]?.session.setSessionTags(tagging.tags(for: address), at: at, effects: &effects)
        }
        output.deliver(effects)
    }

    /// Finishes every open series (shutdown, end of a replay) at `at` (default: the last event's time) and
    /// tries to save them.
    mutating func finishAll(reason: FinishReason, at: Timestamp? = nil) {
        guard let time = at ?? lastEventTime else { return }
        var effects = SessionEffects()
        for address in sessions.keys.sorted() {
            sessions[address]?.session.finishAll(reason, at: time, effects: &effects)
        }
        output.deliver(effects)
    }


    /// One entry per device seen, sorted by address.
    func status() -> [DeviceStatus] {
        sessions.keys.sorted().compactMap { address in
            guard var status = sessions[address]?.session.status else { return nil }
            status.person = tagging.wearers[address.uppercased()]
            return status
        }
    }

    func openSeries(now: Timestamp) -> [Sample] {
        sessions.keys.sorted().flatMap { sessions[$0]?.session.openSeries(now: now) ?? [] }
    }

    /// Buffering and failure counters of the sink side.
    func sinkStatus() -> SinkStatus { output.status }

    // MARK: output

    private mutating func writeCheckpoints(now: Timestamp) {
        lastCheckpoint = now.monotonic
        var open: [SeriesCheckpoint] = []
        if sessions.count == 1, let only = sessions.first?.value {
            open = only.session.checkpoint(now: now) ?? []  // one sensor: no sort
        } else {
            for address in sessions.keys.sorted() {
                if let changes = sessions[address]?.session.checkpoint(now: now) { open += changes }
            }
        }
        guard !open.isEmpty else { return }
        if !output.writeCheckpoints(open) {
            for slot in sessions.values { slot.session.markCheckpointNeeded() }
        }
    }
}

/// A device session in a box (see `PipelineCore.sessions`); only touched under the pipeline's lock.
final class SessionSlot {
    let address: String
    var session: DeviceSession
    init(_ session: DeviceSession) {
        address = session.address
        self.session = session
    }
}
