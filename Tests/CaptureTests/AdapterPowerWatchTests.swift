@testable import Capture
import Foundation
import Testing

/// The rule behind the adapter-off notice, without BlueZ: one notice per stretch an adapter stays unusable, after
/// the delay and not before, whatever the number of reconciles in between.
@Suite struct AdapterPowerWatchTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anAdapterLeftOffIsToldOnceAfterTheDelay() {
        var watch = AdapterPowerWatch(delay: 10)
        #expect(watch.update([("hci0", false)], expected: [], now: 100, date: t0).isEmpty)
        #expect(watch.offSince("hci0") == t0)
        #expect(watch.nextDeadline == 110)
        #expect(watch.update([("hci0", false)], expected: [], now: 109.9, date: t0 + 9.9).isEmpty)
        #expect(watch.update([("hci0", false)], expected: [], now: 110, date: t0 + 10)
                == [.unusable(adapter: "hci0", condition: .off, seconds: 10)])
        #expect(watch.nextDeadline == nil)
        for now in stride(from: 111.0, through: 400, by: 7) {  // every later reconcile: nothing more
            #expect(watch.update([("hci0", false)], expected: [], now: now, date: t0 + (now - 100)).isEmpty)
        }
        #expect(watch.offSince("hci0") == t0)
        #expect(watch.update([("hci0", true)], expected: [], now: 430, date: t0 + 330)
                == [.usable(adapter: "hci0", was: .off, afterSeconds: 330)])
        #expect(watch.offSince("hci0") == nil)
        #expect(watch.nextDeadline == nil)
    }

    @Test func anAdapterOnWithinTheDelaySaysNothingAndEachStretchIsToldAgain() {
        var watch = AdapterPowerWatch(delay: 10)
        _ = watch.update([("hci0", false)], expected: [], now: 0, date: t0)
        #expect(watch.update([("hci0", true)], expected: [], now: 1, date: t0 + 1).isEmpty)  // AutoEnable at start
        #expect(watch.nextDeadline == nil)
        _ = watch.update([("hci0", false)], expected: [], now: 50, date: t0 + 50)  // turned off later
        #expect(watch.update([("hci0", false)], expected: [], now: 60, date: t0 + 60)
                == [.unusable(adapter: "hci0", condition: .off, seconds: 10)])
        _ = watch.update([("hci0", true)], expected: [], now: 70, date: t0 + 70)
        _ = watch.update([("hci0", false)], expected: [], now: 80, date: t0 + 80)
        #expect(watch.offSince("hci0") == t0 + 80)
        #expect(watch.update([("hci0", false)], expected: [], now: 95, date: t0 + 95)
                == [.unusable(adapter: "hci0", condition: .off, seconds: 15)])
    }

    @Test func eachAdapterHasItsOwnStretchAndOneThatGoesAwayIsForgotten() {
        var watch = AdapterPowerWatch(delay: 10)
        _ = watch.update([("hci0", false), ("hci1", true)], expected: [], now: 0, date: t0)
        _ = watch.update([("hci0", false), ("hci1", false)], expected: [], now: 5, date: t0 + 5)
        #expect(watch.nextDeadline == 10)
        #expect(watch.update([("hci0", false), ("hci1", false)], expected: [], now: 10, date: t0 + 10)
                == [.unusable(adapter: "hci0", condition: .off, seconds: 10)])
        #expect(watch.nextDeadline == 15)
        // hci1 unplugged before its notice (any adapter would do): nothing is due, and it starts over when seen again
        #expect(watch.update([("hci0", false)], expected: [], now: 12, date: t0 + 12).isEmpty)
        #expect(watch.nextDeadline == nil && watch.offSince("hci1") == nil)
        _ = watch.update([("hci0", false), ("hci1", false)], expected: [], now: 20, date: t0 + 20)
        #expect(watch.nextDeadline == 30)
    }

    /// The lab's likely case: the adapter heartd was told to use never reached bluetoothd. Absent, then present
    /// but off, is one stretch: one notice.
    @Test func anExpectedAdapterThatIsAbsentIsToldOnceAndItsArrivalToo() {
        var watch = AdapterPowerWatch(delay: 10)
        #expect(watch.update([("hci1", true)], expected: ["hci0"], now: 0, date: t0).isEmpty)
        #expect(watch.update([("hci1", true)], expected: ["hci0"], now: 10, date: t0 + 10)
                == [.unusable(adapter: "hci0", condition: .absent, seconds: 10)])
        #expect(watch.update([("hci0", false)], expected: ["hci0"], now: 15, date: t0 + 15).isEmpty)
        #expect(watch.stretches["hci0"]?.condition == .off && watch.offSince("hci0") == t0)
        #expect(watch.update([("hci0", true)], expected: ["hci0"], now: 16, date: t0 + 16)
                == [.usable(adapter: "hci0", was: .off, afterSeconds: 16)])
    }

    @Test func noAdapterAtAllIsToldWhenAnyWouldDo() {
        var watch = AdapterPowerWatch(delay: 10)
        _ = watch.update([], expected: [], now: 0, date: t0)
        #expect(watch.update([], expected: [], now: 10, date: t0 + 10)
                == [.unusable(adapter: "", condition: .absent, seconds: 10)])
        #expect(watch.update([("hci0", true)], expected: [], now: 12, date: t0 + 12)
                == [.usable(adapter: "", was: .absent, afterSeconds: 12)])
        #expect(watch.stretches.isEmpty)
    }
}
