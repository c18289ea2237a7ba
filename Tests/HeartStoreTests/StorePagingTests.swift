import Foundation
import GRDB
import GRDBSQLite
import HealthModel
import Testing
@testable import HeartStore

/// `samplePage`: a page deep in a listing costs what the first page costs (the rows SQLite visits stay bounded as the
/// cursor advances), and every page in turn lists each sample once, in order. (Listing a year's 100,000 samples took
/// 81 s for another reason: `JSONValueEncoderScaleTests`.)
@Suite struct StorePagingTests {
    static let start = Date(timeIntervalSinceReferenceDate: 785_001_600)

    /// The virtual-machine steps SQLite takes to run one page's query (rows visited, not rows returned).
    static func steps(_ db: HeartDatabase, from: Date, to: Date, newestFirst: Bool, after: SamplePageCursor?) throws -> Int32 {
        try db.read { db in
            guard let (sql, arguments) = try HeartDatabase.pageQuery(
                type: nil, device: nil, from: from, to: to, metadata: [:], limit: 50, newestFirst: newestFirst,
                after: after, in: db)
            else { return 0 }
            let statement = try db.makeStatement(sql: sql)
            statement.arguments = arguments
            _ = try Row.fetchAll(statement)
            return sqlite3_stmt_status(statement.sqliteStatement, SQLITE_STMTSTATUS_VM_STEP, 0)
        }
    }

    @Test(arguments: [false, true]) func aDeepPageVisitsAsFewRowsAsTheFirst(newestFirst: Bool) throws {
        let db = try HeartDatabase.inMemory()
        let count = 3000
        let samples: [Sample] = (0..<count).map { i in
            let t = Self.start.addingTimeInterval(Double(i / 2) * 10) // pairs with equal starts: the anchor breaks ties
            let points = [QuantityPoint(value: 80, start: t, end: t.addingTimeInterval(1)),
                          QuantityPoint(value: 81, start: t.addingTimeInterval(1), end: t.addingTimeInterval(2))]
            return .quantity(QuantitySample(type: .heartRate, start: t, end: t.addingTimeInterval(2), points: points,
                                            aggregates: QuantityAggregates(points: points, style: .discreteTemporallyWeighted),
                                            device: Fixtures.strap))
        }
        try db.save(samples)
        let from = Self.start.addingTimeInterval(-60), to = Self.start.addingTimeInterval(Double(count) * 10)
        // Every page in turn: each sample once, in order.
        var listed: [SampleSummary] = []
        var cursor: SamplePageCursor?
        var deep: SamplePageCursor?
        repeat {
            let page = try db.samplePage(from: from, to: to, limit: 50, newestFirst: newestFirst, after: cursor)
            listed += page.samples
            cursor = page.next
            if listed.count == count - 100 { deep = cursor }
        } while cursor != nil
        #expect(listed.count == count && Set(listed.map(\.uuid)).count == count)
        let order = listed.map { (StoreCoding.seconds($0.start), $0.anchor) }
        #expect(zip(order, order.dropFirst()).allSatisfy { newestFirst ? $0 > $1 : $0 < $1 })
        let first = try Self.steps(db, from: from, to: to, newestFirst: newestFirst, after: nil)
        let firstPage = try db.samplePage(from: from, to: to, limit: 50, newestFirst: newestFirst)
        let next: SamplePageCursor = try #require(firstPage.next)
        let deepCursor: SamplePageCursor = try #require(deep)
        let second = try Self.steps(db, from: from, to: to, newestFirst: newestFirst, after: next)
        let last = try Self.steps(db, from: from, to: to, newestFirst: newestFirst, after: deepCursor)
        // The walk from the range's start to a cursor 2900 rows in would take tens of thousands of steps.
        #expect(last < 2 * max(first, second) + 200, "steps: first page \(first), second \(second), near the end \(last)")
    }
}
