import Foundation
import HealthModel
import Logging
import SourceEvents
import Synchronization

/// The ingest pipeline: one per daemon. Feed it source events (`handle`) and clock ticks (`tick`); it keeps a
/// `DeviceSession` per address, hands finished samples, checkpoints and devices to the sink, and reports live
/// events through `onLiveEvent`. Deterministic: given the same events and ticks (and a deterministic
/// `makeUUID`) it produces the same output, which is what replay relies on.
///
/// Sink failures never lose data below `IngestSettings.memoryBufferBeats`: finished samples wait in memory and
/// are retried on the next event or tick, in order; beyond the bound the oldest are dropped, counted and logged.
public final class IngestPipeline: Sendable {
    public let settings: IngestSettings
    /// The state, behind a lock rather than an actor: a live source can then feed the pipeline synchronously on
    /// the thread that received the notification (no hop to another thread per notification), while ticks,
    /// status and checkpoints come from other tasks.
    private let core: Mutex<PipelineCore>

    /// - Parameters:
    ///   - sink: where finished samples, checkpoints and devices go (the store).
    ///   - logger: used with `device` metadata per session (default: discards everything).
    ///   - makeUUID: sample UUIDs (inject a deterministic one for reproducible replays).
    ///   - liveClock: real CLOCK_MONOTONIC seconds, for the live path's checkpoints and deadlines (tests inject one).
    ///   - onLiveEvent: called synchronously, inside the pipeline's lock, for every live event; keep it cheap and
    ///     never call back into the pipeline from it.
    public init(settings: IngestSettings = IngestSettings(), sink: any SeriesSink,
                logger: Logger = Logger(label: "heartd.ingest", factory: { _ in SwiftLogNoOpLogHandler() }),
                makeUUID: @escaping @Sendable () -> UUID = { UUID() },
                liveClock: @escaping @Sendable () -> Double = { Timestamp.now().monotonic },
                onLiveEvent: (@Sendable (LiveEvent) -> Void)? = nil) {
        self.settings = settings
        core = Mutex(PipelineCore(settings: settings, sink: sink, logger: logger, makeUUID: makeUUID,
                                  liveClock: liveClock, onLiveEvent: onLiveEvent))
    }

    /// Handles one live event (real CLOCK_MONOTONIC time), on the caller's thread: what `tick` would do at the
    /// event's time is done now when due (the checkpoint of a running stream needs no timer of its own), and the
    /// deadline observer learns when the next tick is needed.
    public func handleNow(_ event: SourceEvent) {
        core.withLock { $0.handleLive(event) }
    }

    /// Handles a batch of events under one lock, each followed by a tick at its time when `tickWithEventTime`
    /// (what `consume` does for a replay; benchmarks use it to measure the pipeline rather than the stream).
    public func handleNow(_ events: [SourceEvent], tickWithEventTime: Bool) {
        core.withLock { core in
            for event in events {
                core.handle(event)
                if tickWithEventTime { core.tick(now: event.at) }
            }
        }
    }

    /// Handles one live event (see `handleNow`).
    public func handle(_ event: SourceEvent) async {
        handleNow(event)
    }

    /// Ticks at `now` (live time) and tells the deadline observer when the next tick is needed.
    public func tickLive(now: Timestamp) {
        core.withLock { $0.tickLive(now: now) }
    }

    /// Sets the observer told, under the pipeline's lock, the CLOCK_MONOTONIC time at which the live pipeline
    /// next needs `tickLive` (`nil`: not before the next event): after every live event and live tick. Being
    /// called under the lock, deadlines reach it in order. Keep it cheap and never call back into the pipeline.
    public func setDeadlineObserver(_ observer: (@Sendable (Double?) -> Void)?) {
        core.withLock { core in
            core.onDeadline = observer
            core.publishDeadline()
        }
    }

    /// Applies idle timeouts and maximum durations, retries a failed sink, and writes checkpoints of the open
    /// series when `checkpointInterval` has passed since the last ones. Live use: call about once a second with
    /// `Timestamp.now()`; replay: call with the file's time after each event.
    public func tick(now: Timestamp) async {
        core.withLock { $0.tick(now: now) }
    }

    /// The active sessions changed (one started or stopped, or the daemon started with some active): the open
    /// series of every device whose session changed rotate at `at` (default now), and from then on carry the
    /// session's UUID and label. A device not seen yet is tagged when it first appears.
    public func setActiveSessions(_ active: [Session], at: Timestamp = Timestamp.now()) {
        core.withLock { $0.setActiveSessions(active, at: at) }
    }

    /// Who wears which strap changed (a person assigned, released, renamed or removed; or the daemon started): the
    /// open series of every strap whose wearer changed rotate at `at` (default now) and from then on carry the
    /// person's tags (`Person.tags`).
    public func setPeople(_ people: [Person], at: Timestamp = Timestamp.now()) {
        core.withLock { $0.setPeople(people, at: at) }
    }

    /// Finishes every open series (shutdown, end of a replay) at `at` (default: the last event's time) and
    /// tries to save them.
    public func finishAll(reason: FinishReason, at: Timestamp? = nil) async {
        core.withLock { $0.finishAll(reason: reason, at: at) }
    }

    /// Handles every event of `source` until it ends; with `tickWithEventTime` each event is followed by
    /// `tick(now: event.at)` (replay and simulated time). Does not finish open series at the end.
    public func consume(_ source: some Source, tickWithEventTime: Bool) async {
        for await event in source.events() {
            core.withLock { core in
                core.handle(event)
                if tickWithEventTime { core.tick(now: event.at) }
            }
        }
    }

    /// The series still open, with their data so far, sorted by device address (they are stored when they finish;
    /// until then the daemon lists them from here).
    public func openSeries(now: Timestamp = .now()) -> [Sample] {
        core.withLock { $0.openSeries(now: now) }
    }

    /// One entry per device seen, sorted by address.
    public func status() async -> [DeviceStatus] {
        statusNow()
    }

    /// One entry per device seen, sorted by address (synchronous).
    public func statusNow() -> [DeviceStatus] {
        core.withLock { $0.status() }
    }

    /// Buffering and failure counters of the sink side.
    public func sinkStatus() async -> SinkStatus {
        core.withLock { $0.sinkStatus() }
    }
}
