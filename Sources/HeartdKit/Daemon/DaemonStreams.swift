import Control
import Foundation
import HeartQueries
import HealthModel
import HeartStore

/// The daemon's streams beside `export`: `watch` (live events, of one device or of one session's devices) and
/// `subscribe` (the store's changes after an anchor, as they are saved).
extension DaemonControlHandler {
    /// `device` (one address) or `session` (a session's UUID: the live events of its devices, until it stops).
    func watchStream(_ params: [String: JSONValue]) throws(ControlError) -> AsyncStream<ControlEvent> {
        let p = QueryParameters(params)
        // A filter of the wrong type is an error, not "no filter" (which would stream everything).
        let device = try p.string("device")
        guard params["session"] != nil else { return hub.subscribe(device: device) }
        let uuid = try p.uuid("session")
        let found: Session?
        do {
            found = try queries.database.session(uuid: uuid)
        } catch {
            throw ControlError(.unavailable, "store: \(error)")
        }
        guard let session = found else { throw ControlError(.notFound, "no session \(uuid)") }
        guard session.isActive else { throw ControlError(.invalidParams, "session \(uuid) has ended") }
        return hub.subscribe(session: session, device: device)
    }

    /// `since` (an anchor; default the current one: only what is saved from now on).
    func subscribeStream(_ params: [String: JSONValue]) throws(ControlError) -> AsyncStream<ControlEvent> {
        let since = try QueryParameters(params).int("since")
        if let since, since < 0 { throw ControlError(.invalidParams, "'since' must be an anchor (0 or more)") }
        return changes.subscribe(since: since.map(Int64.init))
    }
}
