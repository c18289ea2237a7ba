import Foundation
import Testing
import HeartRate

/// One entry of Fixtures/hrm_vectors.json (third-party test vectors, see Fixtures/SOURCES.md).
struct HRMVector: Decodable, Sendable, CustomTestStringConvertible {
    struct Expected: Decodable, Sendable {
        let bpm: UInt16
        let contact: String
        let energy_kj: UInt16?
        let rr_1024: [UInt16]
    }
    let hex: String
    let expected: Expected?
    let name: String

    var testDescription: String { "\(name) [\(hex)]" }

    var bytes: [UInt8] {
        get throws {
            let chars = Array(hex.utf8)
            guard chars.count % 2 == 0 else { throw FixtureError(reason: "odd hex length in \(hex)") }
            return try stride(from: 0, to: chars.count, by: 2).map { i in
                guard let b = UInt8(String(decoding: chars[i..<i + 2], as: UTF8.self), radix: 16) else {
                    throw FixtureError(reason: "bad hex \(hex)")
                }
                return b
            }
        }
    }
}

struct FixtureError: Error { let reason: String }

enum HRMFixtures {
    static func load() throws -> [HRMVector] {
        struct File: Decodable { let vectors: [HRMVector] }
        guard let url = Bundle.module.url(forResource: "hrm_vectors", withExtension: "json", subdirectory: "Fixtures") else {
            throw FixtureError(reason: "hrm_vectors.json missing from the test bundle")
        }
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).vectors
    }

    static let all: [HRMVector] = (try? load()) ?? []
}

@Suite struct HRMVectorTests {
    @Test func fixtureLoads() throws {
        let vectors = try HRMFixtures.load()
        #expect(vectors.count >= 12)
        #expect(vectors.contains { $0.expected == nil })
    }

    @Test(arguments: HRMFixtures.all)
    func vectorDecodesAsExpected(_ vector: HRMVector) throws {
        let bytes = try vector.bytes
        guard let expected = vector.expected else {
            #expect(throws: DecodeError.self) { try HeartRateMeasurement(decoding: bytes) }
            return
        }
        let m = try HeartRateMeasurement(decoding: bytes)
        #expect(m.bpm == expected.bpm)
        #expect(m.contact.rawValue == expected.contact)
        #expect(m.energyKilojoules == expected.energy_kj)
        #expect(m.rrIntervals == expected.rr_1024)
        // Round trip: the encoder reproduces a payload that decodes to the same measurement.
        #expect(try HeartRateMeasurement(decoding: m.encoded()) == m)
    }

    /// The decoder ignores bytes after the announced fields when the RR flag is clear. No vector may
    /// contradict that: every valid vector without RR intervals must be exactly as long as its flags announce,
    /// or (if longer) still be expected valid.
    @Test func noVectorContradictsTrailingBytePolicy() throws {
        for vector in HRMFixtures.all {
            let bytes = try vector.bytes
            guard let flags = bytes.first, flags & 0x10 == 0 else { continue }
            let announced = 1 + (flags & 0x01 != 0 ? 2 : 1) + (flags & 0x08 != 0 ? 2 : 0)
            if bytes.count > announced {
                #expect(vector.expected != nil, "vector \(vector.name) rejects trailing bytes")
            }
        }
    }

    @Test func trailingBytesWithoutRRFlagAreIgnored() throws {
        let m = try HeartRateMeasurement(decoding: [0x06, 72, 0xAA, 0xBB, 0xCC])
        #expect(m == HeartRateMeasurement(bpm: 72, contact: .detected))
    }

    @Test func errorCodesSayWhy() {
        func code(_ bytes: [UInt8]) -> DecodeError.Code? {
            do { _ = try HeartRateMeasurement(decoding: bytes); return nil } catch { return error.code }
        }
        #expect(code([]) == .empty)
        #expect(code([0x00]) == .truncated)
        #expect(code([0x01, 0x40]) == .truncated)
        #expect(code([0x08, 60, 0x01]) == .truncated)
        #expect(code([0x10, 60, 0x00, 0x04, 0x01]) == .oddRRBytes)
        #expect(code([0x10, 60]) == nil)
    }

    @Test func decodesFromSlicesWithNonZeroStartIndex() throws {
        let buffer: [UInt8] = [0xFF, 0xFF, 0x16, 0x48, 0x54, 0x01, 0xEC, 0x02]
        let m = try HeartRateMeasurement(decoding: buffer[2...])
        #expect(m.rrIntervals == [340, 748])
        let data = Data(buffer).dropFirst(2)
        #expect(try HeartRateMeasurement(decoding: data) == m)
    }

    @Test func rrUnitConversions() throws {
        let m = try HeartRateMeasurement(decoding: [0x16, 0x48, 0x54, 0x01, 0xEC, 0x02])
        #expect(m.rrIntervalsSeconds == [0.33203125, 0.73046875])
        #expect(m.rrIntervalsMilliseconds == [332.03125, 730.46875])
        #expect(HeartRateMeasurement(bpm: 60).rrIntervalsMilliseconds.isEmpty)
    }

    @Test func longPayloadBeyondTwentyBytes() throws {
        let rr: [UInt16] = (0..<30).map { 800 + UInt16($0) }
        let m = HeartRateMeasurement(bpm: 300, contact: .notDetected, energyKilojoules: 0xFFFF, rrIntervals: rr)
        let bytes = m.encoded()
        #expect(bytes.count == 1 + 2 + 2 + 60)
        #expect(try HeartRateMeasurement(decoding: bytes) == m)
        #expect(m.isUInt16)
    }
}
