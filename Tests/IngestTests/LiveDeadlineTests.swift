import Foundation
import HealthModel
import IngestTestSupport
import SourceEvents
import Synchronization
import Testing
@testable import Ingest

/// The live pipeline without a periodic tick: a running stream checkpoints itself from its events, and the
/// deadline observer names the moment the timer must tick (idle timeout, paused stream, store retry).
@Suite struct LiveDeadlineTests {
    /// Collects what the deadline observer was told.
    final class Deadlines: Sendable {
        let values = Mutex<[Double?]>([])
        var last: Double?? { values.withLock { $0.last } }
        func observer() -> @Sendable (Double?) -> Void { { d in self.values.withLock { $0.append(d) } } }
    }

    /// The pipeline's real clock, moved by the test: each event "arrives" at its own time.
    final class TestClock: Sendable {
        let now = Mutex(t0)
        func set(_ seconds: Double) { now.withLock { $0 = t0 + seconds } }
    }

    func makeLivePipeline(_ settings: IngestSettings = IngestSettings()) -> (IngestPipeline, InMemorySeriesSink, TestClock) {
        let sink = InMemorySeriesSink(), clock = TestClock()
        return (IngestPipeline(settings: settings, sink: sink, liveClock: { clock.now.withLock { $0 } }), sink, clock)
    }

    func beat(_ seconds: Double) -> SourceEvent { notification(seconds, hrm(60, rr: [1024])) }

    /// Handles `event` with the real clock at the event's time.
    func live(_ pipeline: IngestPipeline, _ clock: TestClock, _ event: SourceEvent) {
        clock.now.withLock { $0 = event.at.monotonic }
        pipeline.handleNow(event)
    }

    func checkpointedBeats(_ sink: InMemorySeriesSink) -> Int {
        sink.contents.checkpoints.values.reduce(0) { n, sample in
            if case .heartbeatSeries(let s) = sample { n + s.count } else { n }
        }
    }

    @Test func aRunningStreamIsCheckpointedByItsOwnEvents() {
        let (pipeline, sink, clock) = makeLivePipeline()
        live(pipeline, clock, connected(0))
        live(pipeline, clock, beat(0.2))
        // The first RR of a series also places the beat before it: 2 beats from the first value, then 1 each.
        #expect(checkpointedBeats(sink) == 2, "the first value of a series is checkpointed at once")
        live(pipeline, clock, beat(0.7))
        #expect(checkpointedBeats(sink) == 2, "not again before the interval")
        live(pipeline, clock, beat(1.25))
        #expect(checkpointedBeats(sink) == 4, "the first event after the interval writes it")
        for s in stride(from: 2.0, through: 10.0, by: 1.0) { live(pipeline, clock, beat(s)) }
        #expect(checkpointedBeats(sink) == 13, "a stream at one value per interval checkpoints every value")
    }

    /// Failed before (with checkpoints on the source's clock): the simulator at 200× speed checkpointed 200 times
    /// a second, which filled a full disk's last bytes with WAL pages. Checkpoints follow the real clock.
    @Test func aFastClockStillCheckpointsOncePerRealInterval() {
        let (pipeline, sink, clock) = makeLivePipeline(IngestSettings(maxDuration: 5))
        live(pipeline, clock, connected(0))
        for i in 1...2400 {
            if i == 200 { sink.setFailing(true) }
            clock.set(Double(i) * 0.005)  // real time...
            pipeline.handleNow(notification(Double(i) * 0.005 * 200, hrm(60, rr: [850])))  // ...and a 200× fast clock
        }
        #expect(sink.contents.checkpointCalls <= 14, "\(sink.contents.checkpointCalls) checkpoint writes in 12 s")
    }

    @Test func thePausedStreamDeadlineComesTwoIntervalsAfterTheLastValue() {
        let (pipeline, sink, clock) = makeLivePipeline()
        let deadlines = Deadlines()
        pipeline.setDeadlineObserver(deadlines.observer())
        #expect(deadlines.last == .some(nil), "nothing open: no deadline")
        live(pipeline, clock, connected(0))
        live(pipeline, clock, beat(0.2))
        // Checkpointed at once: what is left is the idle timeout (30 s after the value).
        #expect(abs((deadlines.last ?? nil).map { $0 - (t0 + 30.2) } ?? 99) < 0.01)
        live(pipeline, clock, beat(0.6))
        let paused = try? #require(deadlines.last ?? nil)
        #expect(abs((paused ?? 0) - (t0 + 2.6)) < 0.001, "changed since the checkpoint: 2 intervals after the last value")
        clock.set(2.65)
        pipeline.tickLive(now: at(2.65))
        #expect(checkpointedBeats(sink) == 3, "the timer's tick wrote the paused stream's checkpoint")
        #expect(abs((deadlines.last ?? nil).map { $0 - (t0 + 30.6) } ?? 99) < 0.01, "then only the idle timeout is left")
        clock.set(30.7)
        pipeline.tickLive(now: at(30.7))
        #expect(sink.contents.heartbeatSeries.count == 1, "idle timeout finished the series")
        #expect(deadlines.last == .some(nil))
    }

    @Test func aFailingStoreIsRetriedOnASecondDeadline() {
        let (pipeline, sink, clock) = makeLivePipeline(IngestSettings(maxBeats: 2))
        let deadlines = Deadlines()
        pipeline.setDeadlineObserver(deadlines.observer())
        sink.setFailing(true)
        live(pipeline, clock, connected(0))
        for s in [1.0, 2.0, 3.0] { live(pipeline, clock, beat(s)) }
        #expect(pipeline.statusNow().isEmpty == false)
        let retry = try? #require(deadlines.last ?? nil)
        #expect(abs((retry ?? 0) - (t0 + 4)) < 0.001, "a second after the last attempt")
        sink.setFailing(false)
        clock.set(4)
        pipeline.tickLive(now: at(4))
        #expect(sink.contents.heartbeatSeries.count == 1)
    }
}
