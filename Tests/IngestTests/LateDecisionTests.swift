import Foundation
import HealthModel
import IngestTestSupport
import StrapLab
import Testing
@testable import Ingest

/// Late decisions (docs/INGEST.md, "Late decisions"): a loss after a suspect slot that none of the three
/// notifications held could decide, found by a later check with nothing suspect since, is flagged at its beat in
/// the stored series (the stretch moved to the chain's new place), while live watchers got the beats after at most
/// `maxHeld` notifications and see the deciding notification's first beat flagged.
@Suite struct LateDecisionTests {
    /// Slow heart, a notification lost two or five slots after a reconnect, decidable only 9–12 notifications later
    /// (`heartbench timeline --first-seconds --list-misses --classes slow-heart`): live, a late `rr-chain-behind`
    /// (a false gap and a missed one, as before); stored, the loss flagged at its beat, every interval exact.
    @Test(arguments: [(35 as UInt64, 2), (23, 5), (41, 5)])
    func aLossDecidedLateIsFlaggedAtItsBeatInTheStoredSeries(seed: UInt64, offset: Int) async {
        await Self.expectLateLiveExactStored(seed: seed, offset: offset)
    }

    /// The same losses with a notification without RR at a slow heart between the loss and the check that finds
    /// the chain behind (it may have lost the beat instead, `PlaceContest`): a later arrival refutes that place, 5–11
    /// notifications after the live `rr-chain-behind` re-anchor, and the stored stretch moves to the fault's place —
    /// the loss flagged at its beat, the re-anchored notification's beat unflagged, every interval exact.
    @Test(arguments: [(27 as UInt64, 2), (38, 2), (42, 5)])
    func aLossWhoseOtherPlaceIsRefutedLaterIsFlaggedAtItsBeatInTheStore(seed: UInt64, offset: Int) async {
        await Self.expectLateLiveExactStored(seed: seed, offset: offset)
    }

    /// A slow-heart loss `offset` slots after a reconnect: live, a late `rr-chain-behind` (a false gap and a missed
    /// one, as before); stored, flagged at its beat under the suspect slot's rule, every interval exact, every RR kept.
    static func expectLateLiveExactStored(seed: UInt64, offset: Int) async {
        let scenario = StrapScenario.firstSeconds(.slowHeart, seed: seed, offset: offset, jitter: 0.06, afterReconnect: true)
        let tally = await TimelineScore.score(StrapGenerator.generate(scenario))
        #expect(tally.missed == 1 && tally.falsePositives == 1, "live, as before: \(tally.cases)")
        #expect(tally.stored.missed == 0 && tally.stored.falsePositives == 0 && tally.stored.truePositives >= 2,
                "stored: \(tally.stored)")
        #expect(tally.stored.inexact == 0 && tally.stored.unpaired == 0 && tally.unsaved == 0)
        #expect(tally.invented == 0 && tally.storedRR == tally.deliveredRR)
        #expect(tally.gapsByRule["rr-chain-behind"] == nil && tally.gapsByRule["lost-notification"] == 1,
                "the stored flag counts under the suspect slot's rule: \(tally.gapsByRule)")
    }

    /// Where a second place fits every arrival (`TimelineHypotheses.places`), the stored stretch stays as placed,
    /// even at 200–400 ms of jitter, where the model's grid moves as arrivals come in: each check takes the bound and
    /// the samples with the grid as known then (taken as each arrived, these three were moved).
    @Test(arguments: [(34 as UInt64, 2, 0.2), (34, 2, 0.4), (14, 5, 0.4)])
    func aLossWithASecondPlaceThatFitsStaysAsPlacedInTheStore(seed: UInt64, offset: Int, jitter: Double) async {
        let scenario = StrapScenario.firstSeconds(.slowHeart, seed: seed, offset: offset, jitter: jitter, afterReconnect: true)
        let recording = StrapGenerator.generate(scenario)
        #expect(TimelineHypotheses.places(recording).contains { $0.refutedAt == nil }, "a second place fits")
        let tally = await TimelineScore.score(recording)
        #expect(tally.stored.missed == 1 && tally.stored.falsePositives == 1 && tally.stored.inexact == 0,
                "stored as live: \(tally.stored)")
    }

    /// The store gets the correction through the checkpoints: after every event what the checkpoints hold, applied,
    /// is the open series (the late decision rewrites the heartbeat series' tail, `keeping` < `after`).
    @Test(arguments: [35 as UInt64, 27])
    func theCheckpointsCarryTheCorrectionToTheStore(seed: UInt64) async {
        let scenario = StrapScenario.firstSeconds(.slowHeart, seed: seed, offset: 2, jitter: 0.06, afterReconnect: true)
        let (pipeline, sink) = makePipeline()
        var compared = 0
        for step in StrapGenerator.generate(scenario).steps {
            let written = sink.contents.checkpointLog.count
            await feed(pipeline, [step.event])
            guard sink.contents.checkpointLog.count > written else { continue }  // no checkpoint at this event
            compared += 1
            for sample in pipeline.openSeries(now: step.event.at) {
                #expect(sink.contents.checkpoints[sample.uuid] == sample, "the store differs from the open series")
            }
        }
        let rewrites = sink.contents.checkpointLog.joined().filter { checkpoint in
            guard case .appended(let change) = checkpoint, case .beats = change.items else { return false }
            return change.keeping < change.after
        }
        #expect(compared >= 50)
        #expect(rewrites.count == 1, "one late decision, one rewritten tail")
    }
}
