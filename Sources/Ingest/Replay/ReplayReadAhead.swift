import Foundation
import SourceEvents

/// Reads and parses a `ReplayStream` on a thread of its own, a few batches ahead of the consumer, so that
/// parsing the next lines overlaps with ingesting the previous ones (a replay is otherwise one thread). At most
/// `depth` batches wait: memory stays bounded whatever the input's size.
public final class ReplayReadAhead: @unchecked Sendable {
    public let stream: ReplayStream
    private let depth: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var ready: [[SourceEvent]] = []
    private var finished = false
    private var failure: ReplayError?
    private var cancelled = false

    /// Starts reading `stream` at once; the stream must not be used elsewhere until `next` returned empty.
    /// Call `cancel` when giving up before that.
    public init(_ stream: ReplayStream, depth: Int = 4) {
        self.stream = stream
        self.depth = max(depth, 1)
        let thread = Thread { [self] in produce() }
        thread.name = "heartd-replay-read"
        thread.start()
    }

    /// Stops the reading thread (when the consumer gives up before the end).
    public func cancel() {
        condition.lock()
        cancelled = true
        condition.broadcast()
        condition.unlock()
    }

    /// The next batch of events; empty at the end of the input. Throws what reading threw, after the batches
    /// read before it.
    public func next() throws(ReplayError) -> [SourceEvent] {
        condition.lock()
        defer { condition.unlock() }
        while ready.isEmpty && !finished { condition.wait() }
        if !ready.isEmpty {
            condition.broadcast()
            return ready.removeFirst()
        }
        if let failure { throw failure }
        return []
    }

    private func produce() {
        while true {
            let batch: [SourceEvent]
            do {
                batch = try stream.nextEvents()
            } catch {
                finish(failure: error)
                return
            }
            if batch.isEmpty { return finish(failure: nil) }
            condition.lock()
            while ready.count >= depth && !cancelled { condition.wait() }
            if cancelled {
                condition.unlock()
                return
            }
            ready.append(batch)
            condition.broadcast()
            condition.unlock()
        }
    }

    private func finish(failure: ReplayError?) {
        condition.lock()
        finished = true
        self.failure = failure
        condition.broadcast()
        condition.unlock()
    }
}
