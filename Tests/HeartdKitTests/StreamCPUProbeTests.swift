import Synchronization
import Testing
@testable import HeartdKit

/// The benchmark's CPU probe (`heartd --print-received`) must not cost a system call per notification at the
/// real rate: it reads the process's CPU clock at the first value, then every few seconds (and every 64th value).
@Suite struct StreamCPUProbeTests {
    /// A CPU clock that counts its readings and advances 10 µs per reading.
    final class CountingClock: Sendable {
        let readings = Atomic<Int>(0)
        func read() -> Double { Double(readings.add(1, ordering: .relaxed).newValue) * 10e-6 }
    }

    @Test func atOneValueASecondTheClockIsReadEveryFewValuesNotAtEach() throws {
        let clock = CountingClock()
        let probe = StreamCPUProbe(interval: 4, cpuClock: { clock.read() })
        for i in 0..<30 { probe.value(now: 1000 + Double(i)) }
        let readings = clock.readings.load(ordering: .relaxed)
        #expect(readings == 8, "the first value, then at 4, 8, … 28 s: \(readings) readings for 30 values")
        // The 8th reading was at the 29th value (28 s): 28 values after the first, 7 readings × 10 µs.
        #expect(probe.summary == "stream_cpu_us=70 stream_values=28")
    }

    @Test func atHighRatesEvery64thValueIsRead() throws {
        let clock = CountingClock()
        let probe = StreamCPUProbe(interval: 4, cpuClock: { clock.read() })
        for i in 0..<1000 { probe.value(now: 1000 + Double(i) / 1000) }  // 1000/s for one second
        #expect(clock.readings.load(ordering: .relaxed) == 1 + 1000 / 64)
        #expect(probe.summary == "stream_cpu_us=150 stream_values=959")
        #expect(StreamCPUProbe().summary == nil, "nothing before two readings")
    }
}
