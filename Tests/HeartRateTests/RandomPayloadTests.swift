import HeartRate
import SeededRandom
import Testing

@Suite struct RandomPayloadTests {
    /// 100k random payloads of 0...40 bytes through every decoder: nothing traps, every failure is a
    /// DecodeError, and a valid measurement survives encode → decode unchanged.
    @Test func randomPayloadsNeverTrapAndRoundTrip() {
        var rng = SplitMix64(seed: 0x4845_4152_5444)
        var valid = 0, invalid = 0, mismatches = 0
        for _ in 0..<100_000 {
            let length = Int.random(in: 0...40, using: &rng)
            var bytes = [UInt8](repeating: 0, count: length)
            var word = rng.next()
            for i in 0..<length {
                if i % 8 == 0 { word = rng.next() }
                bytes[i] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(i % 8)))
            }
            do {
                let m = try HeartRateMeasurement(decoding: bytes)
                valid += 1
                if (try? HeartRateMeasurement(decoding: m.encoded())) != m { mismatches += 1 }
            } catch {
                invalid += 1
            }
            _ = try? BodySensorLocation(decoding: bytes)
            _ = try? BatteryLevel(decoding: bytes)
            // (Lossy UTF-8 repair dominates this test's run time: ~50 µs per invalid payload in the stdlib.)
            _ = DeviceInformationField.decodeString(bytes)
        }
        #expect(mismatches == 0)
        // Both outcomes occur, so the loop exercised decoding and rejection.
        #expect(valid > 10_000)
        #expect(invalid > 10_000)
    }

    @Test func randomMeasurementsRoundTrip() throws {
        var rng = SplitMix64(seed: 7)
        let contacts: [SensorContact] = [.notSupported, .notDetected, .detected]
        for _ in 0..<10_000 {
            let wide = Bool.random(using: &rng)
            let bpm = wide ? UInt16.random(in: 0...UInt16.max, using: &rng) : UInt16.random(in: 0...255, using: &rng)
            let energy: UInt16? = Bool.random(using: &rng) ? UInt16.random(in: 0...UInt16.max, using: &rng) : nil
            let rr = (0..<Int.random(in: 0...20, using: &rng)).map { _ in UInt16.random(in: 0...UInt16.max, using: &rng) }
            let contact = contacts[Int.random(in: 0..<3, using: &rng)]
            let m = HeartRateMeasurement(bpm: bpm, contact: contact, energyKilojoules: energy, rrIntervals: rr, isUInt16: wide)
            #expect(try HeartRateMeasurement(decoding: m.encoded()) == m)
        }
    }
}
