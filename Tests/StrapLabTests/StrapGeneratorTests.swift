import HeartRate
import Ingest
import StrapLab
import Testing

/// The simulated strap behind the timeline tests: deterministic, and what it sends is what its truth says.
@Suite struct StrapGeneratorTests {
    func payloads(_ recording: StrapRecording) -> [(rr: [UInt16], delivered: Range<Int>, at: Double)] {
        recording.steps.compactMap { step in
            guard case .notification(_, let bytes, let at) = step.event,
                  let m = try? HeartRateMeasurement(decoding: bytes) else { return nil }
            return (m.rrIntervals, step.delivered, at.monotonic)
        }
    }

    @Test func theSameSeedGivesTheSameRun() {
        let a = StrapGenerator.generate(StrapScenario(fault: .singleLoss, seed: 3))
        let b = StrapGenerator.generate(StrapScenario(fault: .singleLoss, seed: 3))
        let c = StrapGenerator.generate(StrapScenario(fault: .singleLoss, seed: 4))
        #expect(a.steps.map(\.event) == b.steps.map(\.event))
        #expect(a.steps.map(\.event) != c.steps.map(\.event))
    }

    @Test(arguments: FaultClass.allCases)
    func deliveredBeatsAreTheRRSentAndArrivalsKeepTheirOrder(fault: FaultClass) throws {
        let recording = StrapGenerator.generate(StrapScenario(fault: fault, seed: 1))
        let sent = payloads(recording)
        for (rr, delivered, _) in sent where !delivered.isEmpty {
            #expect(Array(rr.suffix(delivered.count)) == delivered.map { UInt16(recording.rr[$0]) })
        }
        #expect(zip(sent, sent.dropFirst()).allSatisfy { $0.at < $1.at })
        // Every true beat is delivered at most once, in order.
        let beats = sent.flatMap { Array($0.delivered) }
        #expect(zip(beats, beats.dropFirst()).allSatisfy { $0 < $1 })
        if fault == .clean { #expect(recording.injected.isEmpty && beats == Array(1...(beats.last ?? 0))) }
        if fault == .highRate {
            let perNotification = Double(beats.count) / Double(sent.count)
            #expect((2.5...4).contains(perNotification), "\(perNotification) RR per notification")
        }
        if fault == .noRR { #expect(sent.allSatisfy { $0.rr.isEmpty }) }
    }

    /// A per-beat sender notifies at its beats: every notification carries RR, its last beat at its send time.
    @Test(arguments: [StrapSender.everyBeat, .firstBeatEachPeriod])
    func perBeatSendersNotifyAtTheirBeats(sender: StrapSender) throws {
        let scenario = StrapScenario.perBeat(sender, seed: 2, bpm: 45, jitter: 0.02)
        let recording = StrapGenerator.generate(scenario)
        let sent = payloads(recording)
        #expect(sent.count == scenario.notifications - scenario.outage!.count)
        #expect(sent.allSatisfy { !$0.rr.isEmpty && $0.rr.count == $0.delivered.count })
        if sender == .everyBeat { #expect(sent.allSatisfy { $0.rr.count == 1 }) }
        // Arrivals are the last delivered beats (sensor clock with drift) up to 20 ms of jitter.
        let ticks = recording.rr.indices.map { recording.rr[...$0].reduce(0, +) }
        for (a, b) in zip(sent, sent.dropFirst()) {
            let beats = Double(ticks[try #require(b.delivered.last)] - ticks[try #require(a.delivered.last)]) / 1024
            #expect(abs(b.at - a.at - beats * (1 + scenario.driftPPM * 1e-6)) <= 0.0201)
        }
    }

    @Test func latenessStaysWithinTheScenariosJitter() {
        let scenario = StrapScenario(fault: .clean, seed: 3)  // 400 ms
        #expect(scenario.maxJitter == 0.4)
        let sent = payloads(StrapGenerator.generate(scenario))
        for (k, step) in sent.enumerated() {
            let send = Double(k + 1) * (1 + scenario.driftPPM * 1e-6)
            let late = step.at - StrapGenerator.epoch - send - scenario.latency
            #expect(late >= -1e-9 && late <= 0.4 + 0.001)
        }
    }
}
