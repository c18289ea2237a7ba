import Control
import Foundation
import HeartStore
import Ingest
import Logging

/// Tells the pipeline which sessions are active (at the daemon's start, after recovery, and after every
/// `session.start`/`session.stop`), so the open series of their devices rotate and carry their tags, and the
/// monitor keeps their live statistics.
func applyActiveSessions(pipeline: IngestPipeline, database: HeartDatabase, monitor: ActiveSessionMonitor) throws(ControlError) {
    do {
        let active = try database.sessions(SessionFilter(activeOnly: true))
        pipeline.setActiveSessions(active)
        monitor.track(active, database: database)
    } catch {
        throw ControlError(.unavailable, "store: active sessions: \(error)")
    }
}

/// Tells the pipeline who wears which strap (at the daemon's start and after every change to the people), so the
/// open series of a strap whose wearer changed rotate and carry the person's tags.
func applyPeople(pipeline: IngestPipeline, database: HeartDatabase) throws(ControlError) {
    do {
        pipeline.setPeople(try database.people())
    } catch {
        throw ControlError(.unavailable, "store: people: \(error)")
    }
}

/// A clean stop with `series.end_sessions_on_shutdown`: ends every active session now, with its statistics.
func endActiveSessions(database: HeartDatabase, logger: Logger) {
    do {
        for session in try database.sessions(SessionFilter(activeOnly: true)) {
            try database.stopSession(uuid: session.uuid, end: Date())
            logger.notice("session ended at shutdown", metadata: ["session": "\(session.uuid)"])
        }
    } catch {
        logger.error("cannot end the active sessions at shutdown", metadata: ["error": "\(error)"])
    }
}
