import Control
import HeartStore
import Ingest

/// Tells the pipeline which sessions are active (at the daemon's start, after recovery, and after every
/// `session.start`/`session.stop`), so the open series of their devices rotate and carry their tags.
func applyActiveSessions(pipeline: IngestPipeline, database: HeartDatabase) throws(ControlError) {
    do {
        pipeline.setActiveSessions(try database.sessions(SessionFilter(activeOnly: true)))
    } catch {
        throw ControlError(.unavailable, "store: active sessions: \(error)")
    }
}
