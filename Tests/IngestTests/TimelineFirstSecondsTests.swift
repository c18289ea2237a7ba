import Ingest
import StrapLab
import Testing

/// Issue 30, item 0: every quiet fault class starting in the first seconds of a connection and of a
/// reconnection (the 2nd, 5th, 10th, 30th and 45th notification), at arrival jitter 20, 60, 200 and 400 ms, on
/// the real RR recording (`SimulatorRecording`), 4 seeds each (drift within ±100 ppm and phases from the seed):
/// `FirstSecondsMatrix`, which `heartbench timeline --first-seconds` prints with 50 seeds.
/// docs/INGEST.md, "From the first notification", says what is decided when, and why `slow-heart` cannot be.
@Suite struct TimelineFirstSecondsTests {
    static let seeds: Range<UInt64> = 0..<4

    @Test(arguments: FirstSecondsMatrix.faults, [false, true])
    func everyLossIsFlaggedAtItsBeatFromTheFirstNotification(fault: FaultClass, afterReconnect: Bool) async {
        let cells = await FirstSecondsMatrix.cells(fault, afterReconnect: afterReconnect, seeds: Self.seeds)
        var total = TimelineTally()
        for cell in cells { total.add(cell.tally) }
        #expect(total.storedRR == total.deliveredRR, "every delivered RR has its beat")
        #expect(total.invented == 0)
        #expect(total.inexact == 0, "every unflagged interval is the delivered RR: every beat at its true time")
        #expect(total.unsaved == 0)
        if fault == .slowHeart {
            // Undecidable in part (docs/INGEST.md): a lost notification that held one beat whose RR, and the
            // next one, are both longer than the period, before K is learnt.
            #expect(total.precision >= 0.9 && total.recall >= 0.9, "precision \(total.precision), recall \(total.recall)")
        } else {
            for cell in cells {
                #expect(cell.tally.precision == 1, "\(cell.offset) s, \(cell.jitter) s: \(cell.tally.falsePositives) false gaps")
                #expect(cell.tally.recall == 1, "\(cell.offset) s, \(cell.jitter) s: \(cell.tally.missed) losses unflagged")
            }
        }
    }

    /// The losses `heartbench timeline --first-seconds --list-misses` listed (50 seeds) that the single held
    /// notification left to a late `rr-chain-behind`: "nothing lost" stops fitting the arrivals within the next
    /// three notifications, and holding up to three (`BeatTimeline.maxHeld`) flags each at its beat.
    @Test(arguments: [(FaultClass.singleLoss, 5 as UInt64, 30, false), (.singleLoss, 19, 30, false),
                      (.singleLoss, 13, 2, true), (.singleLoss, 27, 2, true), (.drift, 5, 30, false),
                      (.drift, 13, 2, true), (.rrLess, 48, 45, true)])
    func aLossDecidedWithinThreeNotificationsIsFlaggedAtItsBeat(fault: FaultClass, seed: UInt64, offset: Int,
                                                                afterReconnect: Bool) async {
        let scenario = StrapScenario.firstSeconds(fault, seed: seed, offset: offset, jitter: 0.2,
                                                  afterReconnect: afterReconnect)
        let tally = await TimelineScore.score(StrapGenerator.generate(scenario))
        #expect(tally.missed == 0 && tally.falsePositives == 0 && tally.truePositives >= 1, "\(tally.cases)")
        #expect(tally.invented == 0 && tally.inexact == 0 && tally.storedRR == tally.deliveredRR)
    }

    /// Slow hearts: a notification lost 30 or 45 slots after a connect, its beat's RR (1107 ms) and the next one
    /// longer than the period, so no RR-span rule can see it; "nothing lost" stops fitting the arrivals at the very
    /// next notification, but only against the notification whose beat fell just before its send, 20–40 slots
    /// back at a heart rate near the period. After a suspect slot on the prior, K comes from up to 64 slots back
    /// (`TimelineModel.priorSampleSpan`), so the loss is flagged at its beat (before: a late `rr-chain-behind`).
    @Test(arguments: [(1 as UInt64, 30), (28, 45)])
    func aSlowHeartLossDecidedAtTheNextNotificationIsFlaggedAtItsBeat(seed: UInt64, offset: Int) async {
        let scenario = StrapScenario.firstSeconds(.slowHeart, seed: seed, offset: offset, jitter: 0.4, afterReconnect: false)
        let tally = await TimelineScore.score(StrapGenerator.generate(scenario))
        #expect(tally.missed == 0 && tally.falsePositives == 0 && tally.truePositives >= 1, "\(tally.cases)")
        #expect(tally.invented == 0 && tally.inexact == 0 && tally.storedRR == tally.deliveredRR)
    }

    /// After a reconnect the sender is known: a strap that notified at a cadence before the link dropped still does
    /// (`TimelineModel.reconnect`). Seed 42 at 400 ms jitter loses the reconnection's 2nd notification; the next
    /// one arrives 1.874 s after the first with 1.852 s of RR, as a per-beat sender's would, so with the sender
    /// forgotten the grid could not decide and `rr-chain-behind` flagged it 13 notifications late (a false gap and a
    /// missed one); with it kept, the loss is flagged at its beat.
    @Test(arguments: [FaultClass.singleLoss, .drift])
    func aReconnectionKeepsWhatTheStreamShowedOfItsSender(fault: FaultClass) async {
        let scenario = StrapScenario.firstSeconds(fault, seed: 42, offset: 2, jitter: 0.4, afterReconnect: true)
        let tally = await TimelineScore.score(StrapGenerator.generate(scenario))
        #expect(tally.missed == 0 && tally.falsePositives == 0 && tally.truePositives >= 1, "\(tally.cases)")
        #expect(tally.gapsByRule["rr-chain-behind"] == nil, "\(tally.gapsByRule)")
        #expect(tally.invented == 0 && tally.inexact == 0 && tally.storedRR == tally.deliveredRR)
    }

    /// Undecidable, as docs/INGEST.md says: one lost notification two slots after a reconnect whose "nothing lost"
    /// chain (844 ms early) fits every arrival of the run within the check's 30 ms (`sendTimeTolerance`). The loss
    /// stays unflagged; nothing else is wrong: no false gap, every delivered RR stored, every flagged-free interval
    /// between consecutive beats exact.
    @Test func aLossThatFitsEveryArrivalWithinTheToleranceStaysUnflagged() async {
        let scenario = StrapScenario.firstSeconds(.singleLoss, seed: 38, offset: 2, jitter: 0.06, afterReconnect: true)
        let tally = await TimelineScore.score(StrapGenerator.generate(scenario))
        #expect(tally.missed == 1 && tally.falsePositives == 0, "\(tally.cases)")
        #expect(tally.invented == 0 && tally.inexact == 0 && tally.storedRR == tally.deliveredRR)
    }

    /// Undecidable which place (docs/INGEST.md, "Every case, listed and argued"): six slow-heart losses whose "nothing
    /// lost" chain stops fitting only at a notification without RR 21–25 notifications after the fault, where a loss
    /// fits every arrival as well (`TimelineHypothesesTests`). No check fires while a stretch is open, the model
    /// moves nothing at the run's end, and the beats stay as placed, live and stored: the loss unflagged, no false
    /// gap, every delivered RR stored, every unflagged interval exact.
    @Test(arguments: [(false, 5, 32 as UInt64), (false, 10, 31), (true, 2, 15), (true, 2, 24), (true, 2, 41), (true, 5, 32)])
    func aSlowHeartLossWithASecondPlaceStaysUnflagged(afterReconnect: Bool, offset: Int, seed: UInt64) async {
        let scenario = StrapScenario.firstSeconds(.slowHeart, seed: seed, offset: offset, jitter: 0.06,
                                                  afterReconnect: afterReconnect)
        let tally = await TimelineScore.score(StrapGenerator.generate(scenario))
        #expect(tally.missed == 1 && tally.falsePositives == 0, "\(tally.cases)")
        #expect(tally.stored.missed == 1 && tally.stored.falsePositives == 0 && tally.stored.inexact == 0)
        #expect(tally.invented == 0 && tally.inexact == 0 && tally.storedRR == tally.deliveredRR && tally.unsaved == 0)
    }

    /// Long clean runs (no fault, reconnections included) at every jitter up to 400 ms: no gap but the connections.
    @Test(arguments: FirstSecondsMatrix.jitters)
    func cleanRunsFlagOnlyTheConnections(jitter: Double) async {
        let tally = await FirstSecondsMatrix.clean(jitter: jitter, seeds: 0..<8)
        #expect(tally.gapsByRule == ["connection": 16], "\(tally.gapsByRule)")
        #expect(tally.falsePositives == 0 && tally.missed == 0 && tally.inexact == 0)
        #expect(tally.stored.falsePositives == 0 && tally.stored.missed == 0 && tally.stored.inexact == 0,
                "no late decision where nothing was lost: \(tally.stored)")
    }
}
