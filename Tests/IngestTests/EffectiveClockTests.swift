import SourceEvents
import Testing
@testable import Ingest

/// `EffectiveClock`: the steps the session acts on, and time that never goes backwards.
@Suite struct EffectiveClockTests {
    let settings = IngestSettings(idleTimeout: 30, gapThreshold: 3, clockTolerance: 2)

    @Test func stepsByTheGapBetweenArrivals() {
        var clock = EffectiveClock()
        #expect(clock.advance(to: at(0), settings: settings) == (t0, .steady))
        #expect(clock.advance(to: at(1), settings: settings) == (t0 + 1, .steady))
        #expect(clock.advance(to: at(4), settings: settings) == (t0 + 4, .steady))  // 3 s: not over the threshold
        #expect(clock.advance(to: at(7.5), settings: settings) == (t0 + 7.5, .gap))
        #expect(clock.advance(to: at(40), settings: settings) == (t0 + 40, .idle))
        #expect(clock.lastArrival == t0 + 40)
        #expect(clock.shift == 0)
    }

    @Test func aStepBackWithinTheToleranceStandsStill() {
        var clock = EffectiveClock()
        _ = clock.advance(to: at(10), settings: settings)
        #expect(clock.advance(to: at(8.5), settings: settings) == (t0 + 10, .steady))
        #expect(clock.shift == 0)  // no lasting shift: jitter must not accumulate
        #expect(clock.advance(to: at(11), settings: settings) == (t0 + 11, .steady))
    }

    @Test func aJumpBackIsReanchoredWhereTheSessionSays() {
        var clock = EffectiveClock()
        _ = clock.advance(to: at(100), settings: settings)
        let (now, step) = clock.advance(to: at(50), settings: settings)
        #expect(now == t0 + 50)
        #expect(step == .backwards(last: t0 + 100))
        #expect(clock.lastArrival == t0 + 100)  // not taken until re-anchored
        clock.reanchor(from: now, to: t0 + 101)
        #expect(clock.shift == 51)
        #expect(clock.lastArrival == t0 + 101)
        // Later arrivals on the old (jumped) clock continue from there.
        #expect(clock.advance(to: at(51), settings: settings) == (t0 + 102, .steady))
        #expect(clock.effective(at(0)) == t0 + 102)  // never before the last arrival
        #expect(clock.shifted(at(0)) == t0 + 51)
    }
}
