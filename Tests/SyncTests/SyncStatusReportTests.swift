import Foundation
import Testing
@testable import Sync

/// The sync part of `heartctl status`: one Codable contract, the state file's fields at the top level plus `lag_s`.
@Suite struct SyncStatusReportTests {
    @Test func encodesTheStateFlatWithTheLagAndDecodesBack() throws {
        var state = SyncState(gateway: "bike-07", central: "postgres://heartd@db/heart")
        let now = Date(timeIntervalSince1970: 1_790_000_100)
        state.oldestUndelivered = now.addingTimeInterval(-12.34)
        state.deliveredAnchor = 5120
        state.storeAnchor = 5133
        state.lastError = .init(code: .timeout, detail: "delivering 7 changes: no answer within 30 s", at: now)
        let report = SyncStatusReport(state, now: now)
        #expect(report.lagSeconds == 12.3)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(report)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["lag_s"] as? Double == 12.3)
        #expect(object["gateway"] as? String == "bike-07")
        #expect(object["deliveredAnchor"] as? Int == 5120)
        #expect((object["lastError"] as? [String: Any])?["code"] as? String == "timeout")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let decoded = try decoder.decode(SyncStatusReport.self, from: data)
        #expect(decoded.lagSeconds == 12.3 && decoded.state.gateway == "bike-07" && decoded.state.storeAnchor == 5133)
        #expect(decoded.state.lastError?.code == .timeout)
        #expect(report.text(now: now).contains("lag 12 s"))
        #expect(report.text(now: now).contains("sync error: timeout: delivering 7 changes"))
        #expect(SyncStatusReport(SyncState(gateway: "g", central: "c"), now: now).text(now: now).contains("caught up"))
    }
}
