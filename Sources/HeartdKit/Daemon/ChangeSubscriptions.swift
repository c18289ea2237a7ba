import Control
import Foundation
import HeartQueries
import HeartStore
import Synchronization

/// `subscribe`: the store's changes after an anchor, pushed as they are saved (HealthKit's observer query plus its
/// anchored query), built on the store's anchored changes (`HeartDatabase.changeList`), not a second feed.
///
/// One `AnchorObservation` wakes every subscriber after each commit that took an anchor; a woken subscriber reads
/// the changes after the last anchor it sent, so however late it wakes it neither misses a change nor sends one
/// twice, and a client that resumes from the last anchor it handled gets exactly what it has not seen.
final class ChangeSubscriptions: Sendable {
    private let database: HeartDatabase
    private let wakers = Mutex<[UUID: AsyncStream<Void>.Continuation]>([:])
    private let observation = Mutex<AnchorObservation?>(nil)
    /// Changes read from the store at a time.
    static let pageSize = 500

    init(database: HeartDatabase) {
        self.database = database
    }

    var subscriberCount: Int { wakers.withLock { $0.count } }

    /// Events for the changes after `since` (default: the current anchor, i.e. only what is saved from now on), then
    /// `caught-up` once, then each change as it is saved. An unreadable store ends the stream with `error`.
    func subscribe(since: Int64?) -> AsyncStream<ControlEvent> {
        startObserving()
        let id = UUID()
        // One pending wake-up is enough: a woken subscriber reads everything after its anchor.
        let (wake, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        wakers.withLock { $0[id] = waker }  // before the first read, so no commit between read and wait is missed
        let database = self.database
        return AsyncStream(bufferingPolicy: .unbounded) { out in
            let task = Task.detached {
                var wakes = wake.makeAsyncIterator()
                do {
                    var anchor = try since ?? database.currentAnchor()
                    var caughtUp = false
                    while !Task.isCancelled {
                        let page = try database.changeList(since: anchor, limit: Self.pageSize)
                        for change in page.changes { out.yield(Self.event(change)) }
                        anchor = page.anchor
                        if page.changes.count >= Self.pageSize { continue }
                        if !caughtUp {
                            caughtUp = true
                            out.yield(ControlEvent(ChangeEvent.caughtUp.rawValue, fields: ["anchor": .int(Int(anchor))]))
                        }
                        guard await wakes.next() != nil else { break }
                    }
                } catch {
                    out.yield(ControlEvent("error", fields: ["message": .string("store: \(error)")], isFinal: true))
                }
                out.finish()
            }
            out.onTermination = { [weak self] _ in
                task.cancel()
                _ = self?.wakers.withLock { $0.removeValue(forKey: id) }?.finish()
            }
        }
    }

    /// Ends every subscriber's stream (daemon shutdown).
    func finishAll() {
        let all = wakers.withLock { w in defer { w.removeAll() }; return Array(w.values) }
        for waker in all { waker.finish() }
        observation.withLock { $0?.cancel(); $0 = nil }
    }

    /// Observes the store from the first subscriber on (a daemon nobody subscribes to pays nothing per commit). A
    /// store not open yet is observed at a later subscription (this one's first read reports the error).
    private func startObserving() {
        observation.withLock { current in
            guard current == nil else { return }
            current = try? database.observeAnchor { [weak self] in
                guard let self else { return }
                for waker in self.wakers.withLock({ Array($0.values) }) { waker.yield() }
            }
        }
    }

    static func event(_ change: StoreChange) -> ControlEvent {
        let anchor: JSONValue = .int(Int(change.anchor))
        switch change {
        case .added(let summary):
            return ControlEvent(ChangeEvent.added.rawValue, fields: ["anchor": anchor, "sample": JSONBridge.value(summary)])
        case .deleted(let uuid, let type, _):
            return ControlEvent(ChangeEvent.deleted.rawValue, fields: [
                "anchor": anchor, "uuid": .string(uuid.uuidString), "type": .string(type),
            ])
        case .session(let session):
            return ControlEvent(ChangeEvent.session.rawValue, fields: ["anchor": anchor, "session": JSONBridge.value(session)])
        }
    }
}
