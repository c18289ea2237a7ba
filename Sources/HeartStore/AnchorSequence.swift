import GRDB

/// Hands out change anchors inside one write transaction: read once, incremented in memory,
/// written back once. Anchors only grow, so a client's anchor orders every later change after it.
struct AnchorSequence {
    private(set) var last: Int64
    private let initial: Int64

    init(_ db: Database) throws {
        last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT lastAnchor FROM store_state WHERE id = 1")) ?? 0
        initial = last
    }

    mutating func next() -> Int64 {
        last += 1
        return last
    }

    func store(_ db: Database) throws {
        guard last != initial else { return }
        try db.cachedStatement(sql: "UPDATE store_state SET lastAnchor = ? WHERE id = 1").execute(arguments: [last])
    }

    static func current(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT lastAnchor FROM store_state WHERE id = 1")) ?? 0
    }
}
