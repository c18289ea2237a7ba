import GRDB

/// A running observation of the store's anchor; `cancel()` (or releasing it) ends it.
public final class AnchorObservation: Sendable {
    let cancellable: AnyDatabaseCancellable

    init(_ cancellable: AnyDatabaseCancellable) {
        self.cancellable = cancellable
    }

    public func cancel() { cancellable.cancel() }
}

extension HeartDatabase {
    /// Calls `onChange` after every committed transaction of this `HeartDatabase` that took a new change anchor (a
    /// sample saved or deleted, a session started, stopped or deleted): the push behind `subscribe`, so subscribers
    /// read `changeList(since:)` when there is something new instead of polling. Called on the writer's queue:
    /// keep it cheap. Writes by other processes are not seen. Throws when the database is not open.
    public func observeAnchor(_ onChange: @escaping @Sendable () -> Void) throws(StoreError) -> AnchorObservation {
        let writer = try self.writer
        let observation = DatabaseRegionObservation(tracking: Table("store_state"))
        return AnchorObservation(observation.start(in: writer, onError: { _ in }, onChange: { _ in onChange() }))
    }
}
