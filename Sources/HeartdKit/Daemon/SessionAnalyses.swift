import Foundation
import HeartStore
import Logging
import Posix
import Synchronization

/// The HRV analyses of stopped sessions, computed after `session.stop` has replied.
///
/// A stop replies as soon as it has committed the session's end and its statistics without the analysis (beats,
/// heart rate, SDNN/RMSSD/pNN50 of the recorded chain, energy, gaps: a store read and one pass). The analysis —
/// artifacts, frequency domain, DFA — costs most of a stop (a 24-hour session: about ¼ s of CPU, a second on a
/// loaded 2-core gateway), so it runs here afterwards and `HeartDatabase.storeSessionAnalysis` adds it to the stored
/// statistics with a new anchor: `sessions`, `session.show` and sync see it from then on (the report computes its
/// own). One thread at a time, at the store reads' low priority (`StoreReadThreads`), takes the stopped sessions in
/// order; it ends when none is left. A session whose analysis was lost with the process (a crash right after its
/// stop) keeps its statistics without one; `session.show` computes it for display (`StoreQueries.sessionShow`).
final class SessionAnalyses: Sendable {
    private struct State {
        var queue: [UUID] = []
        var running = false
    }

    private let database: HeartDatabase
    private let logger: Logger
    private let state = Mutex(State())

    init(database: HeartDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Sessions waiting for their analysis or being analysed.
    var pending: Int { state.withLock { $0.queue.count + ($0.running ? 1 : 0) } }

    /// Queues the analysis of a session just stopped without it; starts the thread if none runs.
    func schedule(_ uuid: UUID) {
        let start = state.withLock { s -> Bool in
            s.queue.append(uuid)
            guard !s.running else { return false }
            s.running = true
            return true
        }
        guard start else { return }
        let thread = Thread { [self] in
            CurrentThread.setName("heartd-analysis")
            CurrentThread.setBatchScheduling()
            CurrentThread.setNice(StoreReadThreads.niceness)
            drain()
        }
        thread.start()
    }

    private func drain() {
        while let uuid = state.withLock({ s -> UUID? in
            guard !s.queue.isEmpty else {
                s.running = false
                return nil
            }
            return s.queue.removeFirst()
        }) {
            do {
                try database.storeSessionAnalysis(uuid: uuid)
            } catch {
                logger.error("cannot store a session's HRV analysis", metadata: ["session": "\(uuid)", "error": "\(error)"])
            }
        }
    }
}
