import Foundation
import Glibc
import HealthModel
import HeartdKit
import HeartStore
import Ingest
import IngestTestSupport
import Logging
import SourceEvents

/// `session.stop` of a 24-hour session as heartd runs it, and what capture feels meanwhile: the open series of the
/// session's device rotated out (`setActiveSessions`), the store writer drained, then the statistics without the HRV
/// analysis computed from a store read and written — the reply — and after it the analysis
/// (`HeartDatabase.storeSessionAnalysis`, which heartd's `SessionAnalyses` runs on a thread of its own). Notifications
/// are handled on the thread that received them (BlueZ's reader), under the pipeline's lock only. Here a thread of
/// its own feeds the same pipeline a notification every 2 ms during every stop and its analysis, and the longest
/// `handleNow` is what a notification waited (`SessionStopCaptureTests` asserts the same on a smaller session).
extension SessionBenchmark {
    struct StopFigures {
        var stopSeconds: [Double] = []
        /// The analysis after each reply.
        var analysisSeconds: [Double] = []
        var handled = 0
        var longestNotification: Duration = .zero
    }

    /// Starts and stops `runs` sessions over [start, end) of `database`'s one device while capture runs.
    func stopsDuringCapture(_ database: HeartDatabase, start: Date, end: Date, runs: Int) async throws -> StopFigures {
        let silent = Logger(label: "heartbench", factory: { _ in SwiftLogNoOpLogHandler() })
        let store = BackgroundSink(StoreSink(database: database, logger: silent), memoryBufferBeats: 1_000_000)
        store.start()
        defer { store.stop() }
        let pipeline = IngestPipeline(sink: store)
        pipeline.handleNow(.connected(address: RealRRRecording.address, device: nil, at: .now()))
        let feeder = NotificationFeeder(pipeline: pipeline, address: RealRRRecording.address)
        var figures = StopFigures()
        for run in 0..<max(1, runs) {
            let session = try database.startSession(Session(label: "24 h stop \(run)", start: start,
                                                            devices: [RealRRRecording.address]))
            pipeline.setActiveSessions([session])
            usleep(50_000) // a few notifications tagged with the session
            feeder.measure(true)
            let (_, seconds) = try await Stopwatch.measureAsync {
                pipeline.setActiveSessions([])
                _ = await store.drain(timeout: 5)
                return try database.stopSession(uuid: session.uuid, end: end, analysis: false)
            }
            let (_, analysis) = try Stopwatch.measure { try database.storeSessionAnalysis(uuid: session.uuid) }
            feeder.measure(false)
            figures.stopSeconds.append(seconds)
            figures.analysisSeconds.append(analysis)
        }
        let fed = feeder.finish()
        figures.handled = fed.handled
        figures.longestNotification = fed.longest
        return figures
    }
}
