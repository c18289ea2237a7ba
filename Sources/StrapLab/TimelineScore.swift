import Foundation
import HealthModel
import Ingest
import IngestTestSupport
import SourceEvents
import Synchronization

/// How the beats heartd stored for generated runs compare with the truth.
///
/// Each stored beat is matched to a true beat: a notification's beats are the tail of its implied predecessor
/// followed by the beats of its delivered RR. A beat *needs* a gap flag when it is an implied predecessor (its
/// interval is estimated, not delivered) or when the beat stored before it is not the true beat before it
/// (beats are missing in between). Flags are then true positives, false positives (no beat missing: a false
/// gap) or missed (a loss that carried a beat, unflagged).
public struct TimelineTally: Sendable, Hashable, GapScore {
    public var runs = 0
    /// RR values the strap delivered (plausible, with contact).
    public var deliveredRR = 0
    /// Delivered RR values whose beat was stored.
    public var storedRR = 0
    /// Stored beats.
    public var beats = 0
    /// Stored beats that are no true beat, or a true beat stored twice.
    public var invented = 0
    /// Unflagged intervals between consecutive true beats that differ from the delivered RR.
    public var inexact = 0
    /// Beats the live events reported that the store does not hold, or the other way round.
    public var unsaved = 0
    public var truePositives = 0
    public var falsePositives = 0
    public var missed = 0
    public var gapsByRule: [String: Int] = [:]
    /// The same counts for the series as stored (finished), where a late decision (docs/INGEST.md, "Late
    /// decisions") moved beats and flagged the loss at its beat after live watchers got them.
    public var stored = StoredTally()
    /// The missed and false flags, in the order they were stored (`TimelineCase`).
    public var cases: [TimelineCase] = []

    public init() {}

    public mutating func add(_ other: TimelineTally) {
        runs += other.runs
        deliveredRR += other.deliveredRR
        storedRR += other.storedRR
        beats += other.beats
        invented += other.invented
        inexact += other.inexact
        unsaved += other.unsaved
        truePositives += other.truePositives
        falsePositives += other.falsePositives
        missed += other.missed
        gapsByRule.merge(other.gapsByRule, uniquingKeysWith: +)
        stored.add(other.stored)
        cases += other.cases
    }
}

public enum TimelineScore {
    /// Feeds the recording through a real `IngestPipeline` (in-memory sink, each event followed by a tick at
    /// its time, as replay does) and scores what it stored.
    public static func score(_ recording: StrapRecording, settings: IngestSettings = IngestSettings()) async -> TimelineTally {
        let live = Mutex<[LiveBeat]>([])
        let sink = InMemorySeriesSink()
        let pipeline = IngestPipeline(settings: settings, sink: sink, onLiveEvent: { event in
            if case .beats(_, let beats) = event { live.withLock { $0 += beats } }
        })
        var tally = TimelineTally()
        tally.runs = 1
        var previous: (beat: Int, time: Double)?
        // Delivered ranges whose beats were not emitted yet (held back for confirmation, or dropped).
        var pending: [Range<Int>] = []
        var step = 0
        // Each emitted beat's true beat (nil: invented) and whether it is an implied predecessor, in order.
        var order: [(beat: Int?, implied: Bool)] = []
        // The emitted beats as the beats of the oldest `k` pending ranges (each range's beats and the beat its first
        // RR starts from), oldest first; the surplus at the front is invented. With fewer emitted than candidates,
        // the candidates left out are implied predecessors (never stored, or dropped as the beat stored before),
        // each choice of them tried; else the oldest candidates.
        func alignments(_ emitted: [LiveBeat], ranges k: Int) -> [(extra: Int, pairs: [(beat: Int, stored: LiveBeat)])] {
            let covered = pending.prefix(k)
            let candidates = Set(covered.flatMap { $0.lowerBound - 1..<$0.upperBound }).sorted()
            let extra = max(0, emitted.count - candidates.count)
            let suffix = (extra, zip(candidates.suffix(emitted.count - extra), emitted.dropFirst(extra)).map { ($0, $1) })
            let implied = candidates.filter { beat in !covered.contains { $0.contains(beat) } }
            let surplus = candidates.count - emitted.count
            guard surplus > 0, surplus <= implied.count, implied.count <= 6 else { return [suffix] }
            var out = [suffix]
            for mask in 0..<(1 << implied.count) where mask.nonzeroBitCount == surplus {
                let left = Set(implied.indices.filter { mask & (1 << $0) != 0 }.map { implied[$0] })
                out.append((0, zip(candidates.filter { !left.contains($0) }, emitted).map { ($0, $1) }))
            }
            return out
        }
        // What an alignment would count against the model: the one that counts least is taken.
        func cost(_ a: (extra: Int, pairs: [(beat: Int, stored: LiveBeat)]), ranges k: Int) -> Int {
            var cost = a.extra, last = previous
            for (beat, stored) in a.pairs {
                let isImplied = !pending.prefix(k).contains { $0.contains(beat) }
                if let last, beat <= last.beat { cost += 1; continue }
                let needsGap = isImplied || last.map { $0.beat != beat - 1 } ?? true
                let time = stored.time.timeIntervalSince1970
                if stored.precededByGap != needsGap {
                    cost += 1
                } else if !needsGap, let last, abs((time - last.time) * 1024 - Double(recording.rr[beat])) > 0.01 {
                    cost += 1
                }
                last = (beat, time)
            }
            return cost
        }
        func match(_ emitted: [LiveBeat]) {
            guard !emitted.isEmpty else { return }
            // Usually every pending range; fewer when beats held back were released in the same step in which a
            // newer notification was held (its range stays pending).
            var k = pending.count
            var best = alignments(emitted, ranges: k)[0]
            var bestCost = cost(best, ranges: k)
            for ranges in stride(from: pending.count, through: 1, by: -1) where bestCost > 0 {
                for a in alignments(emitted, ranges: ranges) {
                    let c = cost(a, ranges: ranges)
                    if c < bestCost { (k, best, bestCost) = (ranges, a, c) }
                }
            }
            let covered = Array(pending.prefix(k))
            defer { pending.removeFirst(k) }
            tally.invented += best.extra
            tally.beats += best.extra
            order += repeatElement((beat: Int?.none, implied: false), count: best.extra)
            for (beat, stored) in best.pairs {
                let isImplied = !covered.contains { $0.contains(beat) }
                order.append((beat, isImplied))
                let time = stored.time.timeIntervalSince1970
                tally.beats += 1
                if !isImplied { tally.storedRR += 1 }
                if let previous, beat <= previous.beat {
                    tally.invented += 1
                    if stored.precededByGap {
                        tally.falsePositives += 1
                        tally.cases.append(TimelineCase(kind: .falseGap, beat: beat, step: step))
                    }
                    continue
                }
                let needsGap = isImplied || previous.map { $0.beat != beat - 1 } ?? true
                switch (stored.precededByGap, needsGap) {
                case (true, true): tally.truePositives += 1
                case (true, false):
                    tally.falsePositives += 1
                    tally.cases.append(TimelineCase(kind: .falseGap, beat: beat, step: step))
                case (false, true):
                    tally.missed += 1
                    tally.cases.append(TimelineCase(kind: .missed, beat: beat, step: step))
                case (false, false):
                    if let previous, abs((time - previous.time) * 1024 - Double(recording.rr[beat])) > 0.01 {
                        tally.inexact += 1
                    }
                }
                previous = (beat, time)
            }
        }
        func drain() -> [LiveBeat] { live.withLock { beats in defer { beats.removeAll() }; return beats } }
        for (index, event) in recording.steps.enumerated() {
            step = index
            pipeline.handleNow([event.event], tickWithEventTime: true)
            tally.deliveredRR += event.delivered.count
            if !event.delivered.isEmpty { pending.append(event.delivered) }
            match(drain())
        }
        step = recording.steps.count
        let status = pipeline.statusNow().first
        let end = recording.steps.last?.event.at.advanced(by: 1) ?? Timestamp(unixSeconds: StrapGenerator.epoch)
        await pipeline.finishAll(reason: .shutdown, at: end)
        match(drain())
        let saved = sink.contents.saved.reduce(0) { n, sample in
            if case .heartbeatSeries(let s) = sample { n + s.count } else { n }
        }
        tally.unsaved = abs(saved - tally.beats)
        tally.stored = StoredTally.score(order: order, saved: sink.contents.saved, rr: recording.rr)
        tally.gapsByRule = status?.counters.gapsByRule ?? [:]
        return tally
    }

    /// Scores `seeds` runs of a fault class.
    public static func score(_ fault: FaultClass, seeds: Range<UInt64>, notifications: Int = 300,
                             settings: IngestSettings = IngestSettings()) async -> TimelineTally {
        var total = TimelineTally()
        for seed in seeds {
            let scenario = StrapScenario(fault: fault, seed: seed, notifications: notifications)
            total.add(await score(StrapGenerator.generate(scenario), settings: settings))
        }
        return total
    }
}
