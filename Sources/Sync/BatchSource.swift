import HeartStore
import SyncConfig

/// The store's changes after an anchor as prepared batches: pages of at most `batchSize` changes read from the
/// store, cut into transactions of at most `batchRows` expanded rows (`ReplicaChanges.split`), each laid out
/// (`PreparedBatch`) before its turn. A value: `next()` returns the batch and the source after it, so
/// `SyncRunner` can compute the following batch in a child task while the current one is written.
struct BatchSource: Sendable {
    let store: HeartDatabase
    let storePath: String
    let batchSize: Int
    let batchRows: Int
    /// Where the next batch starts (the last prepared batch's end).
    private(set) var anchor: Int64
    /// Where the next store read starts, and the read pages not yet prepared.
    private var readAnchor: Int64
    private var pending: [ReplicaChanges] = []

    init(store: HeartDatabase, storePath: String, batchSize: Int, batchRows: Int, after anchor: Int64) {
        self.store = store
        self.storePath = storePath
        self.batchSize = batchSize
        self.batchRows = batchRows
        self.anchor = anchor
        readAnchor = anchor
    }

    /// The next batch (nil when the store holds nothing after `anchor`) and the source after it.
    func next() -> Result<(batch: PreparedBatch?, rest: BatchSource), SyncError> {
        var rest = self
        if rest.pending.isEmpty {
            let page: ReplicaChanges
            do {
                page = try store.replicaChanges(since: readAnchor, limit: batchSize)
            } catch {
                return .failure(SyncError(.store, "the store \(storePath): \(error)"))
            }
            if page.isEmpty && page.anchor == readAnchor { return .success((nil, rest)) }
            rest.readAnchor = page.anchor
            rest.pending = page.split(maxRows: batchRows)
        }
        let head = rest.pending.removeFirst()
        let batch = PreparedBatch(head, from: anchor)
        rest.anchor = head.anchor
        return .success((batch, rest))
    }
}
