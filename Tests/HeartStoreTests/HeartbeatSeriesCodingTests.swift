import Foundation
import HealthModel
@testable import HeartStore
import SeededRandom
import Testing

@Suite struct HeartbeatSeriesCodingTests {
    @Test func tickAlignedBeatsRoundTripExactly() throws {
        for seed: UInt64 in 1...20 {
            let beats = Fixtures.beats(count: 1000, seed: seed)
            let decoded = try HeartbeatSeriesCoding.decode(try HeartbeatSeriesCoding.encode(beats))
            #expect(decoded == beats)
        }
    }

    @Test func arbitraryOffsetsRoundTripWithinHalfATick() throws {
        var rng = SplitMix64(seed: 7)
        var offset = 0.0
        let beats = (0..<500).map { _ in
            offset += Double.random(in: 0.3...1.5, using: &rng)
            return Beat(offset: offset, precededByGap: Bool.random(using: &rng))
        }
        let decoded = try HeartbeatSeriesCoding.decode(try HeartbeatSeriesCoding.encode(beats))
        #expect(decoded.count == beats.count)
        for (a, b) in zip(beats, decoded) {
            #expect(abs(a.offset - b.offset) <= 1.0 / 2048)
            #expect(a.precededByGap == b.precededByGap)
        }
    }

    @Test func realisticSeriesTakesAtMostThreeBytesPerBeat() throws {
        let beats = Fixtures.beats(count: 1000, seed: 42)
        let bytes = try HeartbeatSeriesCoding.encode(beats)
        #expect(Double(bytes.count) / Double(beats.count) <= 3)
        #expect(bytes.count <= 2 * beats.count + 3) // RR < 8 s encodes in 2 bytes
    }

    @Test func emptySeriesRoundTrips() throws {
        let bytes = try HeartbeatSeriesCoding.encode([])
        #expect(bytes == [HeartbeatSeriesCoding.version, 0])
        #expect(try HeartbeatSeriesCoding.decode(bytes).isEmpty)
    }

    @Test func unencodableOffsetsThrow() {
        for bad in [[Beat(offset: -1, precededByGap: false)], [Beat(offset: .nan, precededByGap: false)],
                    [Beat(offset: .infinity, precededByGap: false)],
                    [Beat(offset: 2, precededByGap: false), Beat(offset: 1, precededByGap: false)]] {
            #expect(throws: SeriesCodingError.self) { try HeartbeatSeriesCoding.encode(bad) }
        }
    }

    @Test func malformedBlobsThrowTypedErrors() throws {
        let valid = try HeartbeatSeriesCoding.encode(Fixtures.beats(count: 50, seed: 3))
        func code(_ bytes: [UInt8]) -> SeriesCodingError.Code? {
            do { _ = try HeartbeatSeriesCoding.decode(bytes); return nil } catch { return error.code }
        }
        #expect(code([]) == .truncated)
        #expect(code([9, 0]) == .unknownVersion)
        #expect(code([1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]) == .malformedVarint)
        #expect(code([1, 0xE8, 0x07]) == .inconsistent) // announces 1000 beats, holds none
        #expect(code(valid + [0]) == .inconsistent)
        #expect(code(Array(valid.dropLast())) == .truncated)
        // Beats whose deltas sum past 2^53 ticks.
        #expect(code([1, 2, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F])
                == .inconsistent)
        for cut in 0..<valid.count {
            #expect(code(Array(valid.prefix(cut))) != nil)
        }
    }

    @Test func randomGarbageNeverTraps() {
        var rng = SplitMix64(seed: 99)
        for _ in 0..<5000 {
            var bytes = (0..<Int.random(in: 0..<40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if !bytes.isEmpty && Bool.random(using: &rng) { bytes[0] = HeartbeatSeriesCoding.version }
            _ = try? HeartbeatSeriesCoding.decode(bytes)
        }
    }
}
