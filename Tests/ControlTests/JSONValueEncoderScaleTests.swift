import Foundation
import Testing
@testable import Control

/// `JSONValueEncoder` builds an array of n elements in time linear in n: a `series` page of n samples went through it,
/// and appending copied the array at each element (n²/2 copies: a page of 10,000 samples took 4.5 s of CPU, all
/// 100,000 samples of a year 81 s through pages of 1000).
@Suite struct JSONValueEncoderScaleTests {
    struct Row: Encodable { var id: Int; var tags: [String: Int] }

    @Test func aLongArrayEncodesInLinearTime() throws {
        let count = 60_000
        let rows = (0..<count).map { Row(id: $0, tags: ["a": $0, "b": 1, "c": 2]) }
        let clock = ContinuousClock()
        let start = clock.now
        let value = try JSONValueEncoder().encode(rows)
        let elapsed = clock.now - start
        guard case .array(let elements) = value else { Issue.record("not an array: \(value)"); return }
        #expect(elements.count == count)
        let last: JSONValue = .object(["id": .int(count - 1), "tags": .object(["a": .int(count - 1), "b": .int(1), "c": .int(2)])])
        #expect(elements.last == last)
        // Linear: well under a second even in a debug build on a loaded machine; the quadratic copy took minutes.
        #expect(elapsed < .seconds(10), "\(count) elements took \(elapsed)")
    }
}
